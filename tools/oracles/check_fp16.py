#!/usr/bin/env python3
"""The float16 model gate (issue 12; spec-source fp16.md "Accuracy against ONNX Runtime", oracles.md
"float16 files").

    ~/onemodel/venvs/oracles/bin/python tools/oracles/check_fp16.py ONEMODEL_BINARY
        [--models a,b] [--full] [--engines optimized,reference] [--modes fast,exact] [--threads 1,2]
        [--repeat 2] [--reference-root DIR] [--markdown FILE] [--keep DIR]

Per float16 reference directory (<model>/fp16/b<batch>/, made by make_reference.py --variant fp16)
it runs our engine through `onemodel check` (the path tools/oracles/check_models.sh uses for the
float32 gate), with the float16 gate and --dump, and then compares the dumped outputs with the
float32 directory's (ONNX Runtime on the float32 file, same inputs; fp16.json names it). Printed
per model, batch, engine, mode, thread count and output, as scaled errors max|a - b| / max|b|:

  ours_vs_ort16   ours on the float16 file against ONNX Runtime on the same file; gate <= 4e-3
  ort16_vs_ort32  ONNX Runtime's own float16-versus-float32 error (from fp16.json)
  ours16_vs_ort32 ours on the float16 file against ONNX Runtime on the float32 file; gate <= 1.5 x
                  ort16_vs_ort32

then the first run's 16-digit output hash (exact mode should give the same in both engines) and,
per model, batch, engine, mode and output, whether the output hashes are equal over the thread
counts and repeats (`onemodel check` hashes every run). Both engines and both modes at 1 and 2
threads by default, as the issue asks. Without --full only batch 1 runs (as check_models.sh).

Exit status 0 when every row passes both gates and every hash set is equal; 1 when any gate fails,
a directory is blocked (an operator or element type refused) or `onemodel check` reports an error;
77 (CTest's skip code) when there is no float16 reference data. The float32 gate of check_models.sh
(1e-4) is not the float16 one: half precision rounds every stored value to 11 bits (4.9e-4).

`--markdown FILE` also writes the table in the form of oracles.md's "float16 files" table.
`--keep DIR` keeps our dumped outputs (otherwise a temporary directory is removed).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import oracle_paths as paths

GATE_SAME_FILE = 4e-3  # fp16.md: scaled error against ONNX Runtime on the same file
GATE_RATIO = 1.5  # fp16.md: ours vs float32 no worse than 1.5 x ONNX Runtime's float16 vs float32
SKIP = 77


def scaled_error(ours: np.ndarray, ref: np.ndarray) -> float:
    """max |ours - ref| / max |ref| (fp16.md); NaN or a shape mismatch is infinite."""
    if ours.shape != ref.shape:
        return float("inf")
    if ref.size == 0:
        return 0.0
    diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    if np.isnan(diff).any():
        return float("inf")
    scale = float(np.max(np.abs(ref.astype(np.float64))))
    worst = float(np.max(diff))
    return worst / scale if scale > 0 else worst


def find_dirs(root: Path, models: list[str], full: bool) -> list[Path]:
    dirs = []
    for index in sorted(root.glob("*/fp16/b*/index.json")):
        folder = index.parent
        model = folder.parent.parent.name
        if models and model not in models:
            continue
        if not full and folder.name != "b1":
            continue
        if not (folder / "fp16.json").exists():
            print(f"check_fp16: note: {folder} has no fp16.json (remake it with make_reference.py --variant fp16)")
            continue
        dirs.append(folder)
    # Batch 1 of every model first, then the larger batches (the cheap rows answer first).
    return sorted(dirs, key=lambda d: (int(d.name[1:]), d.parent.parent.name))


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
            _, engine, mode, threads, output, dtype, shape, scaled, _, noise, digest, status = cells
            rows.append({"engine": engine, "mode": mode, "threads": int(threads), "output": output,
                         "shape": shape, "check_scaled": scaled, "ort_noise": noise, "hash": digest,
                         "check_status": status})
    return rows, hashes, blocked, errors


def check_dir(binary: str, refdir: Path, args, dump_root: Path) -> dict:
    index = json.loads((refdir / "index.json").read_text(encoding="utf-8"))
    record = json.loads((refdir / "fp16.json").read_text(encoding="utf-8"))
    fp32_dir = Path(record["fp32_reference"])
    fp32_index = json.loads((fp32_dir / "index.json").read_text(encoding="utf-8"))
    problems = []
    # The second gate needs the float32 output of the same inputs (make_reference.py checked this
    # when it wrote fp16.json; the float32 directory may have been remade since).
    if [(i["name"], i["sha256"]) for i in fp32_index["inputs"]] != [(i["name"], i["sha256"]) for i in index["inputs"]]:
        problems.append(f"inputs differ from {fp32_dir}")
    command = [binary, "check", str(refdir), "--engine", args.engine_arg, "--modes", args.modes,
               "--threads", args.threads, "--repeat", str(args.repeat), "--gate", repr(GATE_SAME_FILE),
               "--dump", str(dump_root), "--allow-blocked"]
    print("check_fp16: " + " ".join(command), flush=True)
    proc = subprocess.run(command, capture_output=True, text=True)
    rows, hashes, blocked, errors = parse_check(proc.stdout)
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not (rows or errors)):
        errors.append(f"onemodel check exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    fp32_outputs = {o["name"]: o for o in fp32_index["outputs"]}
    files = {o["name"]: o["file"] for o in index["outputs"]}
    for row in rows:
        name = row["output"]
        baseline = record["outputs"][name]["ort_fp16_vs_fp32_scaled"]
        session = f"{row['engine']}-{row['mode']}-t{row['threads']}"
        dumped = dump_root / index["model"] / index["variant"] / f"b{index['batch']}" / session / Path(files[name]).name
        ref16 = np.load(refdir / files[name], allow_pickle=False)
        ref32 = np.load(fp32_dir / fp32_outputs[name]["file"], allow_pickle=False)
        if dumped.exists():
            ours = np.load(dumped, allow_pickle=False)
            row["ours_vs_ort16"] = scaled_error(ours, ref16)
            row["ours16_vs_ort32"] = scaled_error(ours, ref32)
        else:
            row["ours_vs_ort16"] = row["ours16_vs_ort32"] = float("inf")
            problems.append(f"no dumped output {dumped}")
        row["ort16_vs_ort32"] = baseline
        row["ratio"] = row["ours16_vs_ort32"] / baseline if baseline > 0 else (
            0.0 if row["ours16_vs_ort32"] == 0 else float("inf"))
        verdict, hash_count = hashes.get((row["engine"], row["mode"], name), ("?", "?"))
        row["hashes"] = verdict
        reasons = []
        if not row["ours_vs_ort16"] <= GATE_SAME_FILE:
            reasons.append(f"vs ORT fp16 above {GATE_SAME_FILE:g}")
        if not row["ours16_vs_ort32"] <= GATE_RATIO * baseline:
            reasons.append(f"vs ORT fp32 above {GATE_RATIO:g} x ORT's")
        if verdict != "equal":
            reasons.append(f"hashes {verdict} ({hash_count})")
        if row["check_status"] != "pass" and not reasons:
            reasons.append(row["check_status"])
        row["status"] = "pass" if not reasons else "FAIL (" + "; ".join(reasons) + ")"
    return {"refdir": refdir, "model": index["model"], "batch": index["batch"], "rows": rows,
            "blocked": blocked, "errors": errors + problems}


def fmt(value: float) -> str:
    return "inf" if value == float("inf") else f"{value:.3e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", help="the onemodel CLI (build/<dir>/onemodel)")
    parser.add_argument("--models", default="", help="comma-separated model names (default: every fp16 directory)")
    parser.add_argument("--full", action="store_true", help="also the models' larger batches (default: batch 1)")
    parser.add_argument("--engines", default="optimized,reference", help="optimized, reference or both (comma list)")
    parser.add_argument("--modes", default="fast,exact")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=2, help="runs per session (hashes compared over all)")
    parser.add_argument("--reference-root", default="", help="default $ONEMODEL_HOME/reference/<os>-<arch>")
    parser.add_argument("--markdown", default="", help="also write the table as markdown to this file")
    parser.add_argument("--keep", default="", help="keep our dumped outputs here")
    args = parser.parse_args()
    engines = sorted({e for e in args.engines.split(",") if e})
    if engines == ["optimized", "reference"]:
        args.engine_arg = "both"
    elif len(engines) == 1 and engines[0] in ("optimized", "reference"):
        args.engine_arg = engines[0]
    else:
        parser.error("--engines takes optimized, reference or both")
    root = Path(args.reference_root) if args.reference_root else paths.reference_dir()
    dirs = find_dirs(root, [m for m in args.models.split(",") if m], args.full)
    if not dirs:
        print(f"check_fp16: SKIPPED: no float16 reference directories under {root} "
              f"(tools/oracles/make_reference.py --variant fp16)")
        return SKIP
    dump_root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="onemodel-fp16-"))
    results = []
    header = ["model", "batch", "engine", "mode", "threads", "output", "ours_vs_ort16", "ort16_vs_ort32",
              "ours16_vs_ort32", "ratio", "hash", "hashes", "status"]
    print("\t".join(header), flush=True)
    try:
        for refdir in dirs:
            result = check_dir(args.binary, refdir, args, dump_root)
            results.append(result)
            for row in result["rows"]:
                print("\t".join([result["model"], str(result["batch"]), row["engine"], row["mode"], str(row["threads"]),
                                 row["output"], fmt(row["ours_vs_ort16"]), fmt(row["ort16_vs_ort32"]),
                                 fmt(row["ours16_vs_ort32"]), f"{row['ratio']:.2f}", row["hash"], row["hashes"],
                                 row["status"]]),
                      flush=True)
            for line in result["blocked"]:
                print(f"blocked\t{result['model']}\t{result['batch']}\t{line}", flush=True)
            for line in result["errors"]:
                print(f"error\t{result['model']}\t{result['batch']}\t{line}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(dump_root, ignore_errors=True)
    failed = sum(1 for r in results for row in r["rows"] if row["status"] != "pass")
    blocked = sum(len(r["blocked"]) for r in results)
    errors = sum(len(r["errors"]) for r in results)
    if args.markdown:
        write_markdown(Path(args.markdown), results)
    reasons = [f"{n} {what}" for n, what in ((failed, "rows failed"), (blocked, "sessions blocked"),
                                              (errors, "errors")) if n]
    if reasons:
        print(f"check_fp16: FAIL ({', '.join(reasons)})")
        return 1
    rows = sum(len(r["rows"]) for r in results)
    print(f"check_fp16: PASS ({len(results)} reference directories, {rows} rows)")
    return 0


def write_markdown(path: Path, results: list) -> None:
    """One line per model, batch, engine, mode and output: the worst value over the thread counts."""
    lines = ["| Model (batch) | Engine | Mode | Output | Ours vs ORT fp16 (gate 4e-3) | ORT fp16 vs ORT fp32 | "
             "Ours fp16 vs ORT fp32 (gate 1.5x) | Threads | Hashes equal | Status |",
             "|---|---|---|---|---:|---:|---:|---|---|---|"]
    for result in results:
        groups = {}
        for row in result["rows"]:
            groups.setdefault((row["engine"], row["mode"], row["output"]), []).append(row)
        for (engine, mode, output), rows in groups.items():
            worst16 = max(r["ours_vs_ort16"] for r in rows)
            worst32 = max(r["ours16_vs_ort32"] for r in rows)
            status = "pass" if all(r["status"] == "pass" for r in rows) else next(
                r["status"] for r in rows if r["status"] != "pass")
            lines.append(f"| {result['model']} ({result['batch']}) | {engine} | {mode} | {output} | {fmt(worst16)} | "
                         f"{fmt(rows[0]['ort16_vs_ort32'])} | {fmt(worst32)} | "
                         f"{','.join(str(r['threads']) for r in rows)} | "
                         f"{'yes' if all(r['hashes'] == 'equal' for r in rows) else 'no'} | {status} |")
        for line in result["blocked"]:
            lines.append(f"| {result['model']} ({result['batch']}) | - | - | - | - | - | - | - | - | blocked: {line} |")
        for line in result["errors"]:
            lines.append(f"| {result['model']} ({result['batch']}) | - | - | - | - | - | - | - | - | error: {line} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
