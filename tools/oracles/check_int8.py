#!/usr/bin/env python3
"""The int8 model gate (issue 14; spec-source oracles.md "The int8 metric", int8.md "Noise floor of
the model-level metric").

    python3 tools/oracles/check_int8.py ONEMODEL_BINARY [--rows model:batch,...] [--full]
        [--engines optimized] [--modes fast,exact] [--threads 1,2] [--repeat 1] [--trials 16]
        [--floors-only] [--reference-root DIR] [--markdown FILE] [--keep DIR]

Per int8 reference directory (<model>/int8/b<batch>/, made by make_reference.py --variant int8) it
runs our engine through `onemodel check --dump` (the gate of `check` itself is switched off with a
huge --gate: the scaled error is printed, not gated, for int8) and compares each dumped float output
with ONNX Runtime's ORT_ENABLE_ALL output by int8_metric.statistics: 1st-percentile row cosine,
pooled cosine (rank >= 3), decision count (task heads); where ONNX Runtime saturates its u8s8
products (x86-64 without VNNI) the comparison is with its exact run of the uint8-shifted model
instead (int8_unsaturated.py). The floor of each statistic comes from
int8_floor.py (cached in the reference directory as floor.json; measured when absent or stale).
A row passes when int8_metric.verdict finds nothing and the output hashes are equal over the thread
counts and repeats (fast mode is deterministic on one machine for any thread count; exact mode
everywhere).

Rows: --rows names model:batch pairs (e.g. minilm-l6:1,mobilenetv3:1); otherwise batch 1 of every
int8 directory, and --full adds the larger batches. --floors-only measures (or confirms) the cached
floors without running our engine (tools/oracles/setup.sh --models does this once).

Exit 0 when every row passes; 1 when a row fails, a session is blocked or `onemodel check` reports
an error; 77 (CTest's skip code) when no requested int8 reference directory exists.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import int8_floor
import int8_metric
import int8_unsaturated
import oracle_paths as paths

SKIP = 77
NO_GATE = "1e300"  # `onemodel check` prints the scaled error; the int8 gate is ours, not its 1e-4


def find_dirs(root: Path, rows: list[tuple[str, int]], full: bool) -> tuple[list[Path], list[str]]:
    """The requested directories and the requested rows that have none."""
    if rows:
        dirs, missing = [], []
        for model, batch in rows:
            folder = root / model / "int8" / f"b{batch}"
            (dirs if (folder / "index.json").exists() else missing).append(folder if (folder / "index.json").exists()
                                                                          else f"{model}:{batch}")
        return dirs, missing
    dirs = [i.parent for i in sorted(root.glob("*/int8/b*/index.json")) if full or i.parent.name == "b1"]
    return sorted(dirs, key=lambda d: (int(d.name[1:]), d.parent.parent.name)), []


def parse_check(text: str):
    """Rows, hash verdicts, blocked and error lines of `onemodel check` (tools/cli/cmd_check.cpp)."""
    rows, hashes, blocked, errors = [], {}, [], []
    for line in text.splitlines():
        cells = line.split("\t")
        if cells[0] == "hashes" and len(cells) >= 7:
            hashes[(cells[2], cells[3], cells[4])] = (cells[5], cells[6])
        elif cells[0] == "blocked" and len(cells) >= 5:
            blocked.append(f"{cells[2]} {cells[3]}: {cells[4]}")
        elif cells[0] == "error" and len(cells) >= 3:
            errors.append(cells[2])
        elif len(cells) == 12 and cells[0] != "refdir":
            _, engine, mode, threads, output, _, _, _, _, _, digest, _ = cells
            rows.append({"engine": engine, "mode": mode, "threads": int(threads), "output": output, "hash": digest})
    return rows, hashes, blocked, errors


def kind_of(model: str) -> str:
    return paths.load_manifest()["models"].get(model, {}).get("kind", "")


def check_dir(binary: str, refdir: Path, args, dump_root: Path) -> dict:
    index = json.loads((refdir / "index.json").read_text(encoding="utf-8"))
    kind = kind_of(index["model"])
    decisions = kind in int8_metric.DECISION_KINDS
    floor = int8_floor.floor_for(refdir, kind, args.trials)
    command = [binary, "check", str(refdir), "--engine", args.engines, "--modes", args.modes,
               "--threads", args.threads, "--repeat", str(args.repeat), "--gate", NO_GATE,
               "--dump", str(dump_root), "--allow-blocked"]
    print("check_int8: " + " ".join(command), flush=True)
    started = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - started
    rows, hashes, blocked, errors = parse_check(proc.stdout)
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not (rows or errors or blocked)):
        errors.append(f"onemodel check exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    files = {o["name"]: o["file"] for o in index["outputs"]}
    # Where this machine's ONNX Runtime saturates its u8s8 products (x86-64 without VNNI), the stored
    # outputs are not the ONNX-defined results: compare with its exact u8u8 run of the same model
    # with the int8 weights shifted to uint8 (int8_unsaturated.py).
    unsaturated = {}
    if int8_unsaturated.saturates():
        feeds = {i["name"]: np.load(refdir / i["file"], allow_pickle=False) for i in index["inputs"]}
        unsaturated = int8_unsaturated.reference_outputs(Path(index["model_file"]), feeds)
        print(f"check_int8: {index['model']} b{index['batch']}: ONNX Runtime saturates u8s8 products on this "
              "machine; the oracle is its run of the model with uint8-shifted weights", flush=True)
    seen = set()
    results = []
    for row in rows:
        key = (row["engine"], row["mode"], row["threads"], row["output"])
        if key in seen:  # --repeat prints a row per run; the dump holds the last, equal when hashes are
            continue
        seen.add(key)
        name = row["output"]
        ref = unsaturated[name] if name in unsaturated else np.load(refdir / files[name], allow_pickle=False)
        if ref.dtype.kind != "f":
            continue
        session = f"{row['engine']}-{row['mode']}-t{row['threads']}"
        dumped = dump_root / index["model"] / index["variant"] / f"b{index['batch']}" / session / Path(files[name]).name
        if dumped.exists():
            ours = int8_metric.statistics(np.load(dumped, allow_pickle=False), ref, decisions)
            reasons = int8_metric.verdict(ours, floor["floor"][name])
        else:
            ours = int8_metric.statistics(np.zeros((0,), np.float32), ref, decisions)
            reasons = [f"no dumped output {dumped}"]
        verdict, count = hashes.get((row["engine"], row["mode"], name), ("?", "?"))
        if verdict != "equal":
            reasons.append(f"hashes {verdict} ({count})")
        results.append({**row, "ours": ours, "floor": floor["floor"][name],
                        "status": "pass" if not reasons else "FAIL (" + "; ".join(reasons) + ")"})
    return {"refdir": refdir, "model": index["model"], "batch": index["batch"], "rows": results,
            "blocked": blocked, "errors": errors, "seconds": seconds, "tap": floor.get("tap")}


def fmt(value, digits=4) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return str(value)
    return "inf" if value == float("inf") else f"{value:.{digits}f}"


def decisions_text(stat: dict) -> str:
    return "n/a" if stat.get("agree") is None else f"{stat['agree']}/{stat['positions']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", default="", help="the onemodel CLI (build/<dir>/onemodel)")
    parser.add_argument("--rows", default="", help="comma-separated model:batch (default: every int8 directory)")
    parser.add_argument("--full", action="store_true", help="also the larger batches (without --rows)")
    parser.add_argument("--engines", default="optimized", choices=["optimized", "reference", "both"])
    parser.add_argument("--modes", default="fast,exact")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=1, help="runs per session (hashes compared over all)")
    parser.add_argument("--trials", type=int, default=16, help="draws per noise set of the floor (int8.md: 16)")
    parser.add_argument("--floors-only", action="store_true", help="measure or confirm the cached floors only")
    parser.add_argument("--reference-root", default="", help="default $ONEMODEL_HOME/reference/<os>-<arch>")
    parser.add_argument("--markdown", default="", help="also write the table as markdown to this file")
    parser.add_argument("--keep", default="", help="keep our dumped outputs here")
    args = parser.parse_args()
    if not args.floors_only and not args.binary:
        parser.error("the onemodel binary is needed unless --floors-only")
    rows = []
    for item in (r for r in args.rows.split(",") if r):
        model, _, batch = item.partition(":")
        if not batch.isdigit():
            parser.error(f"--rows takes model:batch, not {item!r}")
        rows.append((model, int(batch)))
    root = Path(args.reference_root) if args.reference_root else paths.reference_dir()
    dirs, missing = find_dirs(root, rows, args.full)
    if not dirs:
        print(f"check_int8: SKIPPED: no int8 reference directories under {root} "
              f"(tools/oracles/make_reference.py --variant int8){' for ' + ', '.join(missing) if missing else ''}")
        return SKIP
    if missing:
        # Part of the requested data present is a broken set-up, not a reason to skip.
        print(f"check_int8: FAIL: no int8 reference directory for {', '.join(missing)} under {root}")
        return 1
    if args.floors_only:
        for refdir in dirs:
            index = json.loads((refdir / "index.json").read_text(encoding="utf-8"))
            record = int8_floor.floor_for(refdir, kind_of(index["model"]), args.trials)
            print(f"check_int8: floor {index['model']} b{index['batch']}: " + ", ".join(
                f"{n}: row {fmt(f['row'])} pooled {fmt(f['pooled'])} decisions {decisions_text(f)}"
                for n, f in record["floor"].items()), flush=True)
        return 0
    dump_root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="onemodel-int8-"))
    results = []
    header = ["model", "batch", "engine", "mode", "threads", "output", "row_cos", "row_floor", "pooled",
              "pooled_floor", "decisions", "decision_floor", "scaled", "floor_scaled", "hash", "status"]
    print("\t".join(header), flush=True)
    try:
        for refdir in dirs:
            result = check_dir(args.binary, refdir, args, dump_root)
            results.append(result)
            for row in result["rows"]:
                o, f = row["ours"], row["floor"]
                print("\t".join([result["model"], str(result["batch"]), row["engine"], row["mode"], str(row["threads"]),
                                 row["output"], fmt(o["row"]), fmt(f["row"]), fmt(o["pooled"]), fmt(f["pooled"]),
                                 decisions_text(o), fmt(f["agree"]), f"{o['scaled']:.3g}", f"{f['scaled']:.3g}",
                                 row["hash"], row["status"]]), flush=True)
            for line in result["blocked"]:
                print(f"blocked\t{result['model']}\t{result['batch']}\t{line}", flush=True)
            for line in result["errors"]:
                print(f"error\t{result['model']}\t{result['batch']}\t{line}", flush=True)
            print(f"check_int8: {result['model']} b{result['batch']}: onemodel check took {result['seconds']:.1f} s",
                  flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(dump_root, ignore_errors=True)
    if args.markdown:
        write_markdown(Path(args.markdown), results)
    failed = sum(1 for r in results for row in r["rows"] if row["status"] != "pass")
    blocked = sum(len(r["blocked"]) for r in results)
    errors = sum(len(r["errors"]) for r in results)
    empty = sum(1 for r in results if not r["rows"] and not r["blocked"] and not r["errors"])
    reasons = [f"{n} {what}" for n, what in ((failed, "rows failed"), (blocked, "sessions blocked"),
                                              (errors, "errors"), (empty, "directories without rows")) if n]
    if reasons:
        print(f"check_int8: FAIL ({', '.join(reasons)})")
        return 1
    print(f"check_int8: PASS ({len(results)} reference directories, {sum(len(r['rows']) for r in results)} rows)")
    return 0


def write_markdown(path: Path, results: list) -> None:
    """One line per model, batch, engine and mode: the worst value of each statistic over the
    thread counts (they are equal when the hashes are), and the first failing reason if any."""
    lines = ["| Row | Engine | Mode | Threads | Row cos (ours) | Row floor | Pooled (ours) | Pooled floor | "
             "Decisions (ours; floor) | Scaled (ours; floor's worst) | Result |",
             "|---|---|---|---|---:|---:|---:|---:|---|---|---|"]

    def worst(rows, key):
        values = [r["ours"][key] for r in rows if r["ours"][key] is not None]
        return min(values) if values else None

    for result in results:
        groups = {}
        for row in result["rows"]:
            groups.setdefault((row["engine"], row["mode"]), []).append(row)
        for (engine, mode), rows in groups.items():
            f = rows[0]["floor"]
            o = {"row": worst(rows, "row"), "pooled": worst(rows, "pooled"), "agree": worst(rows, "agree"),
                 "positions": rows[0]["ours"]["positions"]}
            scaled = max(r["ours"]["scaled"] for r in rows)
            status = next((r["status"] for r in rows if r["status"] != "pass"), "pass")
            lines.append(f"| {result['model']} b{result['batch']} | {engine} | {mode} | "
                         f"{','.join(str(r['threads']) for r in rows)} | {fmt(o['row'])} | {fmt(f['row'])} | "
                         f"{fmt(o['pooled'])} | {fmt(f['pooled'])} | {decisions_text(o)}; {fmt(f['agree'])} | "
                         f"{scaled:.3g}; {f['scaled']:.3g} | {status} |")
        for line in result["blocked"]:
            lines.append(f"| {result['model']} b{result['batch']} | - | - | - | - | - | - | - | - | - | blocked: {line} |")
        for line in result["errors"]:
            lines.append(f"| {result['model']} b{result['batch']} | - | - | - | - | - | - | - | - | - | error: {line} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
