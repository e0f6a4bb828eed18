"""Shared pieces of the benchmark bar (tools/bench/): paths, reference directories, scaled error,
the machine record, the CSV column order.

Runs under the oracle environment, $ONEMODEL_HOME/venvs/oracles/bin/python (ONEMODEL_HOME
defaults to ~/onemodel); only the standard library and numpy are needed here.
"""
import hashlib
import json
import math
import os
import platform
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH_DIR = Path(__file__).resolve().parent

# Gate of bench-method.md "Output check" / reference-models.md: scaled error above this is wrong.
ERR_GATE = 1e-4
# float16 files (variant "fp16", oracles.md "float16 files"): fp16.md "Accuracy against ONNX Runtime"
# gates the scaled error against ONNX Runtime on the same file at 4e-3 (11-bit significand; two
# correct engines round in different places). The float32-model half of that gate needs the fp32
# output and is tools/oracles/check_fp16.py's, not the bar's.
ERR_GATE_FP16 = 4e-3


def err_gate(variant: str):
    """The scaled-error gate of a row's variant; None for int8 (judged by oracles.md's int8 metric)."""
    if variant.startswith("int8"):
        return None
    if variant.startswith("fp16"):
        return ERR_GATE_FP16
    return ERR_GATE

# ISA flags recorded per row: the brief's list, plus the bench-method.md ones the kernels may use.
# /proc/cpuinfo spells AVX-VNNI "avx_vnni" and AVX-512 VNNI "avx512_vnni".
ISA_FLAGS = [
    ("sse4_1", "sse4_1"), ("sse4_2", "sse4_2"), ("avx", "avx"), ("avx2", "avx2"), ("fma", "fma"),
    ("avx512f", "avx512f"), ("avx512bw", "avx512bw"), ("avx512vl", "avx512vl"),
    ("avx512dq", "avx512dq"), ("avx512vbmi", "avx512vbmi"), ("avxvnni", "avx_vnni"),
    ("avx512vnni", "avx512_vnni"),
    # aarch64 (/proc/cpuinfo "Features"): NEON is "asimd", dot product "asimddp".
    ("neon", "asimd"), ("dotprod", "asimddp"),
]

# Column order of bar.csv. Never reorder: bar.py refuses to append to a CSV whose header differs.
CSV_COLUMNS = [
    "run_id", "finished", "row", "model", "variant", "batch", "engine", "engine_name", "mode",
    "threads_arg", "threads", "status",
    "median_ms", "min_ms", "max_ms", "spread_pct", "reps", "calls_per_rep",
    "load_ms", "first_run_ms", "peak_rss_mb", "alloc_bytes_per_iter", "allocs_per_iter",
    "max_scaled_err", "err_gate", "scaled_err",
    "kernel_path", "version",
    "machine", "cpu_model", "isa", "logical_cores", "os", "python_version", "ort_version",
    "compiler", "build_type", "git_commit",
    "load_before", "load_during", "load_after", "ignore_load", "lock_label",
    "process_wall_s", "exit_code", "refdir", "model_sha256", "command", "note",
]


def onemodel_home() -> Path:
    return Path(os.environ.get("ONEMODEL_HOME", str(Path.home() / "onemodel"))).expanduser()


def machine_class() -> str:
    """`<os>-<arch>` as used under $ONEMODEL_HOME/reference (oracles.md "Reference outputs")."""
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    return f"{platform.system().lower()}-{arch}"


def reference_root() -> Path:
    return onemodel_home() / "reference" / machine_class()


def parse_row(text: str):
    """`model:variant:batch` -> (model, variant, batch)."""
    parts = text.split(":")
    if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2].isdigit():
        raise ValueError(f"a row is model:variant:batch, got {text!r}")
    return parts[0], parts[1], int(parts[2])


# Named row sets: a word "@<name>" in bar.py --rows stands for these rows. "@int8" is the int8 bar
# of issue 14 (oracles.md "int8 variants": the quantized files made by
# tools/oracles/quantize_models.py, beside ONNX Runtime on the same files); whether our outputs are
# right is tools/oracles/check_int8.sh's question, not the bar's (err_gate is None for int8).
ROW_SETS = {
    "fp32": ["resnet50:fp32:1", "resnet50:fp32:8", "mobilenetv3:fp32:1", "mobilenetv3:fp32:8",
             "bert-base:fp32:1", "bert-base:fp32:32", "minilm-l6:fp32:1", "minilm-l6:fp32:32",
             "whisper-enc:fp32:1", "whisper-dec:fp32:1"],
    "int8": ["resnet50:int8:1", "resnet50:int8:8", "mobilenetv3:int8:1", "mobilenetv3:int8:8",
             "bert-base:int8:1", "bert-base:int8:32", "minilm-l6:int8:1", "minilm-l6:int8:32",
             "whisper-enc:int8:1", "whisper-dec:int8:1"],
}


def group_rows(group: str) -> list:
    """Rows of every model of tools/models.json's reference group `group` (the zoo of issue 15:
    "zoo/<model>:fp32:<batch>" for each batch its pin lists), in the file's order. The group is the
    first directory of the row's model, as make_reference.py lays the references out."""
    with open(REPO / "tools" / "models.json", encoding="utf-8") as f:
        models = json.load(f)["models"]
    rows = []
    for name, entry in models.items():
        if entry.get("reference_group") == group:
            rows.extend(f"{group}/{name}:fp32:{b}" for b in entry.get("batches", [entry.get("batch", 1)]))
    if not rows:
        raise ValueError(f"tools/models.json has no model in reference group {group!r}")
    return rows


def expand_rows(words: list) -> list:
    """--rows words with each "@<set>" replaced by its rows (ROW_SETS), order kept, repeats dropped."""
    rows = []
    for word in words:
        if word.startswith("@"):
            if word[1:] == "zoo":
                items = group_rows("zoo")
            elif word[1:] not in ROW_SETS:
                raise ValueError(f"unknown row set {word!r}; known: {', '.join('@' + k for k in ROW_SETS)}, @zoo")
            else:
                items = ROW_SETS[word[1:]]
        else:
            items = [word]
        rows.extend(r for r in items if r not in rows)
    return rows


def row_refdir(root: Path, model: str, variant: str, batch: int) -> Path:
    return root / model / variant / f"b{batch}"


def read_index(refdir: Path) -> dict:
    with open(Path(refdir) / "index.json", encoding="utf-8") as f:
        index = json.load(f)
    if index.get("format") != "onemodel-reference-1":
        raise ValueError(f"{refdir}/index.json: format {index.get('format')!r}, expected onemodel-reference-1")
    return index


def sha256_file(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scaled_error(ours, ref) -> float:
    """max|ours - ref| / max|ref| (bench-method.md "Output check"), in float64. A shape mismatch
    or a NaN/inf where the reference is finite gives inf; an all-zero reference gives the plain
    max |ours - ref| (0 when equal)."""
    import numpy as np

    a = np.asarray(ours)
    b = np.asarray(ref)
    if a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    diff = np.abs(a - b)
    same_nonfinite = (~np.isfinite(b)) & ((a == b) | (np.isnan(a) & np.isnan(b)))
    diff = np.where(same_nonfinite, 0.0, diff)
    if not np.all(np.isfinite(diff)):
        return math.inf
    finite_ref = np.abs(b[np.isfinite(b)])
    scale = float(finite_ref.max()) if finite_ref.size else 0.0
    worst = float(diff.max())
    return worst / scale if scale > 0 else worst


def to_float(value):
    """A JSON/CSV number (or "inf", "nan", null, "") as float, None when absent."""
    if value is None or value == "" or value == "-":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# --- the machine record -------------------------------------------------------------------------

def cpuinfo() -> dict:
    """CPU model and flags from /proc/cpuinfo (first processor)."""
    model, flags = platform.processor() or "-", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip().lower()
                if key in ("model name", "hardware", "cpu model") and model in ("-", ""):
                    model = value.strip()
                elif key in ("flags", "features") and not flags:
                    flags = set(value.split())
                if model not in ("-", "") and flags:
                    break
    except OSError:
        pass
    if model in ("", "-") and flags:
        model = "unknown"
    isa = [name for name, flag in ISA_FLAGS if flag in flags]
    return {"cpu_model": model or "-", "isa": " ".join(isa) if isa else "-"}


def git_commit() -> str:
    """Short commit of the repository, "-dirty" when tracked files differ from it."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, check=True).stdout.strip()
        return commit + ("-dirty" if status else "")
    except (OSError, subprocess.CalledProcessError):
        return "-"


def compiler_of(bench_bin) -> tuple:
    """(compiler version line, CMAKE_BUILD_TYPE) from the CMakeCache.txt next to the runner."""
    if not bench_bin:
        return "-", "-"
    cache = Path(bench_bin).resolve().parent / "CMakeCache.txt"
    compiler, build_type = None, "-"
    try:
        for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("CMAKE_CXX_COMPILER:"):
                compiler = line.split("=", 1)[1].strip()
            elif line.startswith("CMAKE_BUILD_TYPE:"):
                build_type = line.split("=", 1)[1].strip() or "-"
    except OSError:
        return "-", "-"
    if not compiler:
        return "-", build_type
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=10).stdout
        first = out.splitlines()[0].strip() if out else compiler
    except (OSError, subprocess.SubprocessError):
        first = compiler
    return first, build_type


def python_and_ort_of(python) -> tuple:
    """(Python version, onnxruntime.__version__) of the interpreter that runs ort_row.py."""
    code = "import platform; print(platform.python_version())\nimport onnxruntime; print(onnxruntime.__version__)"
    try:
        out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60)
        lines = out.stdout.split()
    except (OSError, subprocess.SubprocessError):
        lines = []
    return (lines[0] if lines else "-"), (lines[1] if len(lines) > 1 else "-")


def machine_record(bench_bin=None, ort_python=None) -> dict:
    uname = os.uname()
    python_version, ort_version = python_and_ort_of(ort_python) if ort_python else (platform.python_version(), "-")
    compiler, build_type = compiler_of(bench_bin)
    record = {
        "machine": platform.node() or "-",
        "logical_cores": os.cpu_count() or 0,
        "os": f"{uname.sysname} {uname.release} {uname.machine}",
        "python_version": python_version,
        "ort_version": ort_version,
        "compiler": compiler,
        "build_type": build_type,
        "git_commit": git_commit(),
    }
    record.update(cpuinfo())
    return record


def loadavg1():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None
