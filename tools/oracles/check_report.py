#!/usr/bin/env python3
"""Turns the output of `onemodel check` (or tools/oracles/check_models.sh) into a markdown table.

    python3 tools/oracles/check_report.py CHECK_OUTPUT.txt [more.txt ...] > table.md

One row per (model, batch, engine, mode, output): the largest scaled error over the thread counts
(the gate is 1e-4), ONNX Runtime's own enabled-vs-disabled difference for scale, the largest
element-wise error (reported, not gated), the thread counts run, whether every hash of the row was
equal (across thread counts and repeats), and the status. Blocked rows are listed with their reason.
Standard library only.
"""
import sys
from collections import OrderedDict


def main() -> int:
    rows = OrderedDict()
    hashes = {}
    blocked = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                cells = line.rstrip("\n").split("\t")
                if cells[0] == "hashes" and len(cells) >= 7:
                    _, refdir, engine, mode, output, verdict = cells[:6]
                    hashes[(refdir, engine, mode, output)] = verdict
                elif cells[0] == "blocked" and len(cells) >= 5:
                    blocked.append(cells[1:5])
                elif len(cells) == 12 and cells[0] != "refdir":
                    refdir, engine, mode, threads, output, _, shape, scaled, elementwise, noise, _, status = cells
                    key = (refdir, engine, mode, output)
                    row = rows.setdefault(key, {"threads": [], "scaled": 0.0, "elementwise": 0.0, "noise": noise,
                                                "shape": shape, "status": "pass"})
                    row["threads"].append(threads)
                    row["scaled"] = max(row["scaled"], float(scaled)) if scaled != "-" else float("inf")
                    row["elementwise"] = max(row["elementwise"], float(elementwise)) if elementwise != "-" else float("inf")
                    if status != "pass":
                        row["status"] = status
    print("| Model | Batch | Engine | Mode | Output | Shape | Scaled error (gate 1e-4) | ORT enabled vs disabled | "
          "Element-wise error | Threads | Hashes equal | Status |")
    print("|---|---:|---|---|---|---|---:|---:|---:|---|---|---|")
    for (refdir, engine, mode, output), row in rows.items():
        parts = refdir.rstrip("/").split("/")
        model, batch = parts[-3], parts[-1].lstrip("b")
        verdict = hashes.get((refdir, engine, mode, output), "?")
        print(f"| {model} | {batch} | {engine} | {mode} | {output} | {row['shape']} | {row['scaled']:.2e} | "
              f"{row['noise']} | {row['elementwise']:.2e} | {','.join(row['threads'])} | "
              f"{'yes' if verdict == 'equal' else verdict} | {row['status']} |")
    for refdir, engine, mode, reason in blocked:
        parts = refdir.rstrip("/").split("/")
        print(f"| {parts[-3]} | {parts[-1].lstrip('b')} | {engine} | {mode} | - | - | - | - | - | - | - | "
              f"blocked: {reason} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
