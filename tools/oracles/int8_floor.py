"""ONNX Runtime's own noise floor for the int8 metric (spec-source int8.md "Noise floor of the
model-level metric"), measured per reference directory (<model>/int8/b<batch>/ of make_reference.py)
and cached beside it as floor.json.

Every run is compared with the directory's stored ORT_ENABLE_ALL output (int8_metric.statistics):
  set 1  ORT_DISABLE_ALL on the same inputs;
  set 2  `trials` ORT_ENABLE_ALL runs with relative Gaussian noise of 1e-7 (about one float32 ulp)
         on every float graph input (empty for token-id encoders);
  set 3  dynamic models only: `trials` ORT_ENABLE_ALL runs with the same noise on the float tensor
         feeding the first DynamicQuantizeLinear (in node order), through an added graph input
         `noise_tap` and an Add (zeros leave the result unchanged); skipped when that tensor is
         itself a graph input (set 2 covers it);
  set 4  one ORT_ENABLE_ALL run with the session option `session.qdqisint8allowed` = 1 on the same
         inputs: ONNX Runtime's own other int8 graph, the one its arm64 builds make by default
         (QDQIsInt8Allowed() is true on Arm and false on x86, where int8 activation pairs are first
         turned into uint8 and a Conv whose input and output types then differ stays float). This set
         is ours, not the source's (docs/design.md "The fourth floor set"): the reference itself is
         one of ONNX Runtime's two int8 graphs, and which layers it runs as integers is its
         sensitivity as much as one ulp of input noise is.
The floor of each statistic is its smallest value over all runs. Sessions are as make_reference.py's
(sequential, one intra-op thread). Draws are seeded from (model, batch, set, trial), so the floor is
repeatable. The floor depends only on ONNX Runtime and the files, so floor.json is reused while the
index (model and data hashes), ONNX Runtime's version, the trial count and FLOOR_VERSION match.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

import int8_metric
import oracle_paths as paths

FLOOR_VERSION = 2  # bumped when the method changes, so cached floors are remade (2: set 4 added)
INT8_ALLOWED = "session.qdqisint8allowed"  # ONNX Runtime's session option; "1" = its Arm default
NOISE = 1e-7
TAP = "noise_tap"


def draw_rng(model: str, batch: int, which: str, trial: int) -> np.random.Generator:
    seed = int.from_bytes(hashlib.sha256(f"int8-floor:{model}:b{batch}:{which}:{trial}".encode()).digest(), "little")
    return np.random.Generator(np.random.PCG64(seed))


def perturb(value: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """value + value * 1e-7 * N(0,1), computed in float64 and rounded back to float32."""
    return (value.astype(np.float64) * (1.0 + NOISE * rng.standard_normal(value.shape))).astype(value.dtype)


def session(model, level, config: dict | None = None):
    import onnxruntime as ort
    options = ort.SessionOptions()
    for key, value in (config or {}).items():
        options.add_session_config_entry(key, value)
    options.graph_optimization_level = level
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def first_dynamic_quantize_input(graph) -> str | None:
    for node in graph.node:
        if node.op_type == "DynamicQuantizeLinear" and node.domain in ("", "ai.onnx"):
            return node.input[0]
    return None


def tapped_models(model_path: Path, tensor: str) -> tuple[bytes, bytes]:
    """(the model with `tensor` also as a graph output, the model with noise_tap added to it).
    The onnx package only edits the graph; onnxruntime runs it."""
    import onnx
    from onnx import TensorProto, helper
    base = onnx.load(str(model_path))
    probe = onnx.ModelProto()
    probe.CopyFrom(base)
    probe.graph.output.append(helper.make_tensor_value_info(tensor, TensorProto.FLOAT, None))
    tapped = base
    noisy = tensor + "__noisy"
    for node in tapped.graph.node:
        for k, name in enumerate(node.input):
            if name == tensor:
                node.input[k] = noisy
    producer = next((k for k, n in enumerate(tapped.graph.node) if tensor in n.output), None)
    if producer is None:
        raise SystemExit(f"int8_floor: {model_path.name}: no node produces {tensor}")
    add = helper.make_node("Add", [tensor, TAP], [noisy], name="int8_floor_noise_tap")
    tapped.graph.node.insert(producer + 1, add)
    tapped.graph.input.append(helper.make_tensor_value_info(TAP, TensorProto.FLOAT, None))
    return probe.SerializeToString(), tapped.SerializeToString()


def floor_path(refdir: Path) -> Path:
    return refdir / "floor.json"


def cached_floor(refdir: Path, trials: int, version: int = FLOOR_VERSION) -> dict | None:
    import onnxruntime as ort
    try:
        record = json.loads(floor_path(refdir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = (version, paths.sha256_file(refdir / "index.json"), ort.__version__, trials)
    if (record.get("floor_version"), record.get("index_sha256"), record.get("onnxruntime"), record.get("trials")) != key:
        return None
    return record


def load_index(refdir: Path):
    """(index, model path, inputs, float reference outputs by name), the model checked against its hash."""
    index = json.loads((refdir / "index.json").read_text(encoding="utf-8"))
    model_path = Path(index["model_file"])
    if paths.sha256_file(model_path) != index["model_sha256"]:
        raise SystemExit(f"int8_floor: {model_path} is not the file {refdir} was made from")
    inputs = {i["name"]: np.load(refdir / i["file"], allow_pickle=False) for i in index["inputs"]}
    refs = {o["name"]: np.load(refdir / o["file"], allow_pickle=False) for o in index["outputs"]}
    return index, model_path, inputs, {n: v for n, v in refs.items() if v.dtype.kind == "f"}


def int8_allowed_run(model_path: Path, inputs: dict, refs: dict, decisions: bool) -> dict:
    """Set 4: the statistics of ONNX Runtime's int8-allowed graph against the reference."""
    import onnxruntime as ort
    names = list(refs)
    allowed = session(str(model_path), ort.GraphOptimizationLevel.ORT_ENABLE_ALL, {INT8_ALLOWED: "1"})
    outputs = dict(zip(names, allowed.run(names, inputs)))
    return {n: int8_metric.statistics(outputs[n], refs[n], decisions) for n in names}


def finish(record: dict, refdir: Path, started: float) -> dict:
    """The floor of each statistic over every set, written to floor.json."""
    names = list(next(iter(record["per_set"].values())))
    record["floor"] = {n: int8_metric.worst_of([s[n] for s in record["per_set"].values()]) for n in names}
    record["floor_version"] = FLOOR_VERSION
    record["seconds"] = round(record.get("seconds", 0.0) + time.monotonic() - started, 1)
    floor_path(refdir).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record


def upgrade(refdir: Path, kind: str, trials: int, log=print) -> dict | None:
    """A version-1 floor.json of the same files gains set 4 without repeating sets 1 to 3 (their
    runs and seeds are unchanged by version 2); None when there is no such record."""
    record = cached_floor(refdir, trials, version=1)
    if record is None:
        return None
    started = time.monotonic()
    _, model_path, inputs, refs = load_index(refdir)
    record["per_set"]["int8_allowed"] = int8_allowed_run(model_path, inputs, refs,
                                                         kind in int8_metric.DECISION_KINDS)
    record["runs"]["int8_allowed"] = 1
    log(f"int8_floor: {record['model']} b{record['batch']}: set 4 added to the cached floor")
    return finish(record, refdir, started)


def measure(refdir: Path, kind: str, trials: int, log=print) -> dict:
    """Runs the four sets and writes floor.json; returns its record."""
    import onnx
    import onnxruntime as ort
    index, model_path, inputs, refs = load_index(refdir)
    names = list(refs)
    decisions = kind in int8_metric.DECISION_KINDS
    model, batch = index["model"], index["batch"]
    started = time.monotonic()
    runs: dict[str, list[dict]] = {"disabled": [], "input_noise": [], "tap_noise": []}

    def record(which, outputs):
        runs[which].append({n: int8_metric.statistics(outputs[n], refs[n], decisions) for n in names})

    disabled = session(str(model_path), ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    record("disabled", dict(zip(names, disabled.run(names, inputs))))
    del disabled
    enabled = session(str(model_path), ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    float_inputs = [n for n, v in inputs.items() if v.dtype.kind == "f"]
    if float_inputs:
        for t in range(trials):
            rng = draw_rng(model, batch, "input", t)
            noisy = {n: (perturb(v, rng) if n in float_inputs else v) for n, v in inputs.items()}
            record("input_noise", dict(zip(names, enabled.run(names, noisy))))
    del enabled
    graph = onnx.load(str(model_path), load_external_data=False).graph
    tap = first_dynamic_quantize_input(graph)
    graph_inputs = {i.name for i in graph.input}
    tap_note = "none (no DynamicQuantizeLinear: static or float model)"
    zero_tap = None
    if tap is not None and tap in graph_inputs:
        tap_note = f"skipped: {tap} is a graph input (set 2 covers it)"
    elif tap is not None:
        tap_note = tap
        probe_bytes, tapped_bytes = tapped_models(model_path, tap)
        probe = session(probe_bytes, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        base = probe.run([tap], inputs)[0]
        del probe
        tapped = session(tapped_bytes, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        # Zeros must leave the result as the reference (else the tap changed ONNX Runtime's graph):
        # recorded, and printed, not part of the floor.
        zero = dict(zip(names, tapped.run(names, {**inputs, TAP: np.zeros_like(base)})))
        zero_tap = {n: int8_metric.statistics(zero[n], refs[n], decisions) for n in names}
        for t in range(trials):
            rng = draw_rng(model, batch, "tap", t)
            noise = (base.astype(np.float64) * NOISE * rng.standard_normal(base.shape)).astype(np.float32)
            record("tap_noise", dict(zip(names, tapped.run(names, {**inputs, TAP: noise}))))
        del tapped
    runs["int8_allowed"] = [int8_allowed_run(model_path, inputs, refs, decisions)]
    per_set = {which: {n: int8_metric.worst_of([r[n] for r in rs]) for n in names}
               for which, rs in runs.items() if rs}
    record_out = finish({
        "format": "onemodel-int8-floor-1", "floor_version": FLOOR_VERSION,
        "index_sha256": paths.sha256_file(refdir / "index.json"), "onnxruntime": ort.__version__,
        "trials": trials, "model": model, "batch": batch, "decisions": decisions, "tap": tap_note,
        "runs": {which: len(rs) for which, rs in runs.items()}, "per_set": per_set,
        "zero_tap": zero_tap, "seconds": 0.0,
    }, refdir, started)
    log(f"int8_floor: {model} b{batch}: {sum(record_out['runs'].values())} ONNX Runtime runs in "
        f"{record_out['seconds']} s (tap: {tap_note})")
    return record_out


def floor_for(refdir: Path, kind: str, trials: int, log=print) -> dict:
    """The cached floor when current, else a fresh measurement (and the cache rewritten)."""
    cached = cached_floor(refdir, trials)
    if cached is not None:
        return cached
    upgraded = upgrade(refdir, kind, trials, log)
    if upgraded is not None:
        return upgraded
    log(f"int8_floor: measuring the floor of {refdir} ({trials} draws per set; cached afterwards)")
    return measure(refdir, kind, trials, log)
