"""The runs of a conformance sweep and one run of the runner on one shard (docs/sweeps.md).

The runs are those of tests/cmake/conformance.cmake (spec/conformance.md section 7): both
engines in fast and exact mode, and the whole-graph differential gate (`--twin-threads 1,2`,
exact mode) once per kernel path, ONEMODEL_ISA capping the optimized engine's path. A path this
CPU lacks is reported as not run, never run on a lower path (the golden tool answers, exit 77).
"""
import os
import shutil
import subprocess
import tempfile

from sweep_cases import make_case_tree

KERNEL_PATHS = ("scalar", "sse", "avx2", "avx512")
PATH_NOT_AVAILABLE = 77  # tools/golden/isa_env.hpp, kNotAvailable


def all_runs():
    """[(name, runner arguments after DIR, ONEMODEL_ISA or None)] in report order."""
    runs = []
    for engine in ("reference", "optimized"):
        for mode in ("fast", "exact"):
            runs.append((f"{engine}-{mode}", ["--engine", engine, "--mode", mode], None))
    for isa in KERNEL_PATHS:
        runs.append((f"twin-{isa}", ["--engine", "reference", "--mode", "exact", "--twin-threads", "1,2"], isa))
    return runs


def select_runs(names):
    runs = all_runs()
    if not names:
        return runs
    known = {run[0] for run in runs}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"sweep: unknown run(s) {', '.join(unknown)}; the runs are {', '.join(sorted(known))}")
    return [run for run in runs if run[0] in names]


def runner_environment(isa):
    """The environment of one runner process: the caller's, with ONEMODEL_ISA set for a twin run and
    removed otherwise, so that a cap left in the caller's shell never changes a run silently."""
    env = dict(os.environ)
    env.pop("ONEMODEL_ISA", None)
    if isa is not None:
        env["ONEMODEL_ISA"] = isa
    return env


def path_available(golden, isa):
    if isa is None:
        return True
    probe = subprocess.run([golden, "--engine", "optimized", "--list"], env=runner_environment(isa),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if probe.returncode == PATH_NOT_AVAILABLE:
        return False
    if probe.returncode != 0:
        raise RuntimeError(f"{golden} --engine optimized --list under ONEMODEL_ISA={isa} exited with "
                           f"{probe.returncode}: {probe.stderr.strip()[-400:]}")
    return True


def run_shard(cli, golden, data_root, run, cases):
    """Runs the runner once over `cases` ([(group, case)], or None for the whole data root) and
    returns {"available", "status", "tsv_rows", "stdout"}: the TSV's rows without its header, the
    runner's standard output and exit status (0, or 1 when a case failed). Any other exit status is
    an error of the sweep, raised with the runner's last words."""
    name, arguments, isa = run
    if not path_available(golden, isa):
        return {"available": False, "status": None, "tsv_header": "", "tsv_rows": [], "stdout": ""}
    scratch = tempfile.mkdtemp(prefix="onemodel-sweep-")
    try:
        root = data_root
        if cases is not None:
            root = os.path.join(scratch, "cases")
            make_case_tree(root, data_root, cases)
        tsv_path = os.path.join(scratch, "run.tsv")
        command = [cli, "conformance", root, *arguments, "--tsv", tsv_path]
        done = subprocess.run(command, env=runner_environment(isa), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{name}: {' '.join(command)} exited with {done.returncode}: "
                               f"{done.stderr.strip()[-800:]}")
        if not os.path.isfile(tsv_path):
            raise RuntimeError(f"{name}: {' '.join(command)} exited with {done.returncode} and wrote no TSV: "
                               f"{done.stderr.strip()[-800:]}")
        with open(tsv_path, encoding="utf-8", newline="") as f:
            text = f.read()
        if not text.startswith("group\tcase\t"):
            raise RuntimeError(f"{name}: {tsv_path} is not a conformance TSV (it starts {text[:40]!r})")
        stdout = done.stdout
        if root != data_root:
            # A reason may name a file of the case (`... in <root>/node/test_x/model.onnx`): name it
            # as a run over the data root does. The link it went through points there, and the
            # temporary folder's random name cannot occur in a reason by chance.
            text = text.replace(os.path.join(root, ""), os.path.join(data_root, ""))
            stdout = stdout.replace(os.path.join(root, ""), os.path.join(data_root, ""))
        lines = text.splitlines(keepends=True)
        return {"available": True, "status": done.returncode, "tsv_header": lines[0] if lines else "",
                "tsv_rows": lines[1:], "stdout": stdout}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
