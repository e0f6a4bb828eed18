#!/usr/bin/env python3
"""The benchmark bar driver (spec-source bench-method.md, "Driver").

    $ONEMODEL_HOME/venvs/oracles/bin/python tools/bench/bar.py \
        --rows "resnet50:fp32:1 resnet50:fp32:8" (or "@int8": benchlib.ROW_SETS) [--threads "1 all"] [--engines "ort fast exact"] \
        [--bench-bin build/rel/bench_model_row] [--out ~/onemodel/bench]

For each row (model:variant:batch) x thread count x engine it runs ONE process wrapped in
`/usr/bin/time -v`: tools/bench/ort_row.py for "ort", `bench_model_row --mode fast|exact` for
"fast" and "exact", each on the reference directory
$ONEMODEL_HOME/reference/<os>-<arch>/<model>/<variant>/b<batch>/. "all" threads is os.cpu_count().

Before anything runs it claims the benchmark lock atomically (O_CREAT|O_EXCL at $ONEMODEL_LOCK,
default ~/WORKER-BENCH.lock; label `onemodel bar <rows> <start> <expected end>`) and removes it
on exit, Ctrl-C and SIGTERM included. It refuses to start if the lock exists or the 1-minute load
average exceeds half the logical cores (--ignore-load overrides the load check for smoke tests and
is recorded in every row). Every row is appended to bar.csv (columns: benchlib.CSV_COLUMNS) and
bar.md in --out (default $ONEMODEL_HOME/bench). tools/bench/report.py makes docs/performance.md.
"""
import argparse
import csv
import datetime as dt
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

ENGINES = ("ort", "fast", "exact")
RUNNER_KEYS = ["engine", "mode", "threads", "model", "variant", "batch", "load_ms", "first_run_ms",
               "median_ms", "min_ms", "max_ms", "spread_pct", "reps", "calls_per_rep",
               "alloc_bytes_per_iter", "allocs_per_iter", "max_scaled_err", "scaled_err",
               "kernel_path", "version"]


class Interrupted(Exception):
    pass


def on_signal(signum, _frame):
    raise Interrupted(f"signal {signum}")


def default_bench_bin():
    env = os.environ.get("ONEMODEL_BENCH_BIN")
    if env:
        return Path(env)
    for build in ("rel", "opt"):  # the Release build directories of this repository
        candidate = benchlib.REPO / "build" / build / "bench_model_row"
        if candidate.is_file():
            return candidate
    return None


def default_ort_python():
    venv = benchlib.onemodel_home() / "venvs" / "oracles" / "bin" / "python"
    return venv if venv.is_file() else Path(sys.executable)


def iso(t: dt.datetime) -> str:
    return t.isoformat(timespec="seconds")


def fmt(value, digits=3):
    number = benchlib.to_float(value)
    if number is None:
        return "-"
    if number != number or number in (float("inf"), float("-inf")):
        return str(number)
    return f"{number:.{digits}g}" if abs(number) < 1e-3 and number != 0 else f"{number:.{digits}f}"


class LoadSampler(threading.Thread):
    """Reads the 1-minute load average every half second while the child runs; the last reading
    before the child exits is the row's load_during (the end of its timed phase, give or take the
    output check)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.last = benchlib.loadavg1()

    def run(self):
        while not self.stop.wait(0.5):
            self.last = benchlib.loadavg1()


def kill_group(child):
    """Ends the process group of a child we started (/usr/bin/time and the runner under it)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def parse_peak_rss_mb(time_file: Path):
    try:
        for line in time_file.read_text(encoding="utf-8", errors="replace").splitlines():
            if "Maximum resident set size" in line:
                return round(int(line.rsplit(":", 1)[1].strip()) / 1024.0, 1)  # kbytes -> MiB
    except (OSError, ValueError):
        pass
    return None


def last_json_line(text: str):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def check_csv_header(path: Path):
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
    if header != benchlib.CSV_COLUMNS:
        sys.exit(f"bar.py: {path} has other columns than this bar.py writes; move it away first")


def append_csv(path: Path, row: dict):
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=benchlib.CSV_COLUMNS, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in benchlib.CSV_COLUMNS})


MD_HEADER = ("| row | engine | threads | status | median ms | min ms | max ms | spread % | calls/rep | "
             "load ms | first run ms | peak RSS MB | allocs/call | max scaled err | load before/during/after |\n"
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")


def md_row(r: dict) -> str:
    cells = [r["row"], r["engine"], f"{r['threads_arg']} ({r['threads']})", r["status"],
             fmt(r.get("median_ms")), fmt(r.get("min_ms")), fmt(r.get("max_ms")), fmt(r.get("spread_pct"), 1),
             str(r.get("calls_per_rep") or "-"), fmt(r.get("load_ms"), 1), fmt(r.get("first_run_ms")),
             fmt(r.get("peak_rss_mb"), 1), fmt(r.get("allocs_per_iter"), 1),
             f"{benchlib.to_float(r.get('max_scaled_err')):.2e}" if benchlib.to_float(r.get("max_scaled_err")) is not None else "-",
             f"{r.get('load_before')}/{r.get('load_during')}/{r.get('load_after')}"]
    return "| " + " | ".join(str(c) for c in cells) + " |\n"


def classify(result: dict, variant: str):
    """(status, err_gate, note) of a finished runner."""
    err = benchlib.to_float(result.get("max_scaled_err"))
    gate = benchlib.err_gate(variant)
    if gate is None:
        # int8 rows are judged by the cosine/decision metric of oracles.md, not by scaled error.
        return "ok", "-", "int8: scaled error reported, not gated"
    if err is None:
        return "wrong", gate, "no scaled error reported"
    if not err <= gate:  # NaN fails too
        return "wrong", gate, f"max_scaled_err {err:.3g} > {gate:g}: not a result"
    return "ok", gate, ""


def main() -> int:
    parser = argparse.ArgumentParser(description="benchmark bar driver (bench-method.md)")
    parser.add_argument("--rows", required=True,
                        help='"model:variant:batch ..."; "@fp32" and "@int8" stand for the named row sets of benchlib.ROW_SETS, '
                             '"@zoo" for every batch of the zoo models (tools/models.json, issue 15)')
    parser.add_argument("--threads", default="1 all", help='thread counts, numbers or "all" (default "1 all")')
    parser.add_argument("--engines", default="ort fast exact", help='subset of "ort fast exact"')
    parser.add_argument("--bench-bin", type=Path, default=None,
                        help="bench_model_row (default $ONEMODEL_BENCH_BIN, build/rel/, build/opt/)")
    parser.add_argument("--python", type=Path, default=None,
                        help="interpreter for ort_row.py (default $ONEMODEL_HOME/venvs/oracles/bin/python)")
    parser.add_argument("--out", type=Path, default=benchlib.onemodel_home() / "bench")
    parser.add_argument("--reference-root", type=Path, default=benchlib.reference_root(),
                        help="directory holding <model>/<variant>/b<batch>/ (default %(default)s)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--target-seconds", type=float, default=1.0)
    parser.add_argument("--max-calls", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per process (default 3600)")
    parser.add_argument("--ignore-load", action="store_true",
                        help="start even if the load average exceeds half the cores (smoke tests; recorded)")
    parser.add_argument("--allow-non-release", action="store_true",
                        help="accept a bench_model_row whose CMakeCache.txt says other than Release")
    parser.add_argument("--pin-one-thread", type=int, default=None, metavar="CPU",
                        help="run every one-thread process (both engines) on this logical CPU only "
                             "(`taskset -c CPU`, shown in the command column); runs of more threads stay unpinned")
    parser.add_argument("--lock", type=Path,
                        default=Path(os.environ.get("ONEMODEL_LOCK", str(Path.home() / "WORKER-BENCH.lock"))))
    args = parser.parse_args()

    try:
        rows = benchlib.expand_rows(args.rows.split())
    except ValueError as error:
        parser.error(str(error))
    engines = args.engines.split()
    if not rows or not engines or any(e not in ENGINES for e in engines):
        parser.error(f"--rows must not be empty; --engines is a subset of {' '.join(ENGINES)}")
    cores = os.cpu_count() or 1
    threads = []
    for word in args.threads.split():
        n = cores if word == "all" else int(word) if word.isdigit() and int(word) > 0 else None
        if n is None:
            parser.error(f'--threads takes positive numbers and "all", got {word!r}')
        if n not in [t for _, t in threads]:
            threads.append((word, n))

    # Everything that can be checked is checked before the lock is taken.
    plan = []
    for text in rows:
        try:
            model, variant, batch = benchlib.parse_row(text)
        except ValueError as error:
            parser.error(str(error))
        refdir = benchlib.row_refdir(args.reference_root, model, variant, batch)
        if not (refdir / "index.json").is_file():
            sys.exit(f"bar.py: no reference for {text}: {refdir}/index.json is missing")
        plan.append((text, model, variant, batch, refdir.resolve(), benchlib.read_index(refdir)))

    bench_bin = args.bench_bin or default_bench_bin()
    if any(e in ("fast", "exact") for e in engines):
        if bench_bin is None or not Path(bench_bin).is_file():
            sys.exit("bar.py: bench_model_row not found; build it or pass --bench-bin (or drop fast/exact from --engines)")
        bench_bin = Path(bench_bin).resolve()
    else:
        bench_bin = None
    ort_python = (args.python or default_ort_python()) if "ort" in engines else None
    record = benchlib.machine_record(bench_bin, ort_python or default_ort_python())
    if bench_bin and record["build_type"] not in ("Release", "-") and not args.allow_non_release:
        sys.exit(f"bar.py: {bench_bin} is a {record['build_type']} build; time a Release build "
                 "(or pass --allow-non-release)")
    time_bin = "/usr/bin/time"
    if not os.access(time_bin, os.X_OK):
        sys.exit("bar.py: /usr/bin/time is missing (Debian: apt-get install time)")
    # One-thread rows on one named CPU: on a VM whose vCPUs run at different speeds (session 33:
    # a depthwise layer took 117 us on one vCPU and 173-177 on the other in the same minute), an
    # unpinned process lands on either, and ONNX Runtime's row and ours may not land on the same.
    pin = []
    if args.pin_one_thread is not None:
        if args.pin_one_thread not in os.sched_getaffinity(0):
            parser.error(f"--pin-one-thread {args.pin_one_thread}: not a CPU this process may run on "
                         f"({sorted(os.sched_getaffinity(0))})")
        pin = ["taskset", "-c", str(args.pin_one_thread)]

    args.out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = args.out / "bar.csv", args.out / "bar.md"
    check_csv_header(csv_path)

    load_start = benchlib.loadavg1()
    if load_start is not None and load_start > cores / 2 and not args.ignore_load:
        sys.exit(f"bar.py: 1-minute load average {load_start} exceeds half of {cores} cores; "
                 "wait for a quiet machine (or --ignore-load for a smoke test)")

    start = dt.datetime.now().astimezone()
    run_id = start.strftime("%Y%m%dT%H%M%S%z")
    processes = len(plan) * len(threads) * len(engines)
    expected = start + dt.timedelta(seconds=processes * (args.reps * args.target_seconds + 10))
    lock_label = f"onemodel bar {' '.join(rows)} {iso(start)} {iso(expected)}"

    try:
        fd = os.open(args.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        try:
            holder = args.lock.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            holder = "?"
        sys.exit(f"bar.py: the benchmark lock {args.lock} exists ({holder}); not starting")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(lock_label + "\n")

    old_handlers = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    child = None
    time_file = None
    failures = 0
    allocating = []  # rows of ours that allocate in warm calls
    try:
        with open(md_path, "a", encoding="utf-8") as md:
            md.write(f"\n## Run {run_id}: {' '.join(rows)}\n\n")
            md.write(f"threads {args.threads!r}, engines {args.engines!r}, reps {args.reps}, "
                     f"target {args.target_seconds} s, max calls {args.max_calls}"
                     f"{f', one-thread runs on CPU {args.pin_one_thread}' if pin else ''}"
                     f"{', **--ignore-load** (not publishable)' if args.ignore_load else ''}\n\n")
            for key in ("machine", "cpu_model", "isa", "logical_cores", "os", "python_version",
                        "ort_version", "compiler", "build_type", "git_commit"):
                md.write(f"- {key}: {record[key]}\n")
            md.write(f"- bench_model_row: {bench_bin or '-'}\n- lock_label: {lock_label}\n\n")
            md.write(MD_HEADER)
        for text, model, variant, batch, refdir, index in plan:
            for threads_arg, n in threads:
                for engine in engines:
                    common = [str(refdir), "--threads", str(n), "--reps", str(args.reps),
                              "--target-seconds", str(args.target_seconds), "--max-calls", str(args.max_calls)]
                    if engine == "ort":
                        command = [str(ort_python), str(benchlib.BENCH_DIR / "ort_row.py")] + common
                    else:
                        command = [str(bench_bin)] + common[:1] + ["--mode", engine] + common[1:]
                    if n == 1:
                        command = pin + command
                    print(f"bar.py: {text} threads={n} {engine}: {shlex.join(command)}", file=sys.stderr, flush=True)
                    with tempfile.NamedTemporaryFile(prefix="bar-time-", suffix=".txt", delete=False) as tf:
                        time_file = Path(tf.name)
                    sampler = LoadSampler()
                    load_before = benchlib.loadavg1()
                    t0 = time.monotonic()
                    sampler.start()
                    status, note = None, ""
                    child = subprocess.Popen([time_bin, "-v", "-o", str(time_file)] + command,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                             start_new_session=True)
                    try:
                        stdout, stderr = child.communicate(timeout=args.timeout)
                    except subprocess.TimeoutExpired:
                        kill_group(child)
                        stdout, stderr = child.communicate()
                        status, note = "timeout", f"killed after {args.timeout:g} s"
                    exit_code = child.returncode
                    child = None
                    sampler.stop.set()
                    sampler.join()
                    wall = time.monotonic() - t0
                    load_after = benchlib.loadavg1()
                    peak_rss = parse_peak_rss_mb(time_file)
                    time_file.unlink(missing_ok=True)

                    result = last_json_line(stdout) or {}
                    if status is None:
                        if exit_code != 0 or not result:
                            tail = " ".join(stderr.strip().splitlines()[-3:])[-300:]
                            status, note = "error", f"exit {exit_code}, {'no JSON line' if not result else 'JSON line'}: {tail}"
                        else:
                            missing = [k for k in RUNNER_KEYS if k not in result]
                            # A grouped row's model is "<group>/<name>"; the runners report the name.
                            asked = {"model": model.rsplit("/", 1)[-1], "variant": variant, "batch": batch, "threads": n}
                            if engine != "ort":
                                asked["mode"] = engine
                            mismatch = [k for k, v in asked.items() if k in result and result[k] != v]
                            status, _, note = classify(result, variant)
                            if missing or mismatch:
                                status = "error"
                                note = (f"missing keys {missing} " if missing else "") + \
                                       (f"runner reports other {mismatch} than asked" if mismatch else "")
                    gate = benchlib.err_gate(variant) if benchlib.err_gate(variant) is not None else "-"
                    scaled = result.get("scaled_err")
                    row = {
                        "run_id": run_id, "finished": iso(dt.datetime.now().astimezone()), "row": text,
                        "model": model, "variant": variant, "batch": batch, "engine": engine,
                        "engine_name": result.get("engine", "-"), "mode": result.get("mode", "-" if engine == "ort" else engine),
                        "threads_arg": threads_arg, "threads": n, "status": status,
                        "median_ms": result.get("median_ms"), "min_ms": result.get("min_ms"),
                        "max_ms": result.get("max_ms"), "spread_pct": result.get("spread_pct"),
                        "reps": result.get("reps"), "calls_per_rep": result.get("calls_per_rep"),
                        "load_ms": result.get("load_ms"), "first_run_ms": result.get("first_run_ms"),
                        "peak_rss_mb": peak_rss,
                        "alloc_bytes_per_iter": result.get("alloc_bytes_per_iter"),
                        "allocs_per_iter": result.get("allocs_per_iter"),
                        "max_scaled_err": result.get("max_scaled_err"), "err_gate": gate,
                        "scaled_err": json.dumps(scaled, separators=(",", ":")) if scaled is not None else "",
                        "kernel_path": result.get("kernel_path", "-"), "version": result.get("version", "-"),
                        **record,
                        "load_before": load_before, "load_during": sampler.last, "load_after": load_after,
                        "ignore_load": 1 if args.ignore_load else 0, "lock_label": lock_label,
                        "process_wall_s": round(wall, 2), "exit_code": exit_code, "refdir": str(refdir),
                        "model_sha256": index.get("model_sha256", "-"), "command": shlex.join(command),
                        "note": note,
                    }
                    append_csv(csv_path, row)
                    with open(md_path, "a", encoding="utf-8") as md:
                        md.write(md_row(row))
                    if status != "ok":
                        failures += 1
                    allocs = result.get("allocs_per_iter") if status == "ok" else None
                    if allocs:  # issue 15's target: 0 per warm call on every static-shape row
                        allocating.append(f"{text} {engine} {n}T: {allocs}")
                    print(f"bar.py:   -> {status} median {fmt(row['median_ms'])} ms, peak RSS "
                          f"{fmt(peak_rss, 1)} MB, max scaled err {row['max_scaled_err']} {note}",
                          file=sys.stderr, flush=True)
    except (KeyboardInterrupt, Interrupted) as why:
        if child is not None and child.poll() is None:
            kill_group(child)
            child.wait()
        print(f"bar.py: interrupted ({why or 'Ctrl-C'}); rows so far are in {csv_path}", file=sys.stderr)
        return 130
    finally:
        for s, handler in old_handlers.items():
            signal.signal(s, handler)
        if time_file is not None:
            time_file.unlink(missing_ok=True)
        try:
            if args.lock.read_text(encoding="utf-8").strip() == lock_label:
                args.lock.unlink()
        except OSError:
            pass
    print(f"bar.py: run {run_id}: {processes} processes, {failures} not ok; {csv_path}, {md_path}", file=sys.stderr)
    if allocating:
        print(f"bar.py: allocations per warm call (target 0): {'; '.join(allocating)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
