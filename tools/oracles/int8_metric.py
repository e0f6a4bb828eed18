"""The model-level int8 metric (spec-source oracles.md "The int8 metric"; int8.md "Noise floor of the
model-level metric"): statistics of one output against ONNX Runtime's ORT_ENABLE_ALL output, and the
gate that compares ours with the floor. No onnxruntime here: tools/oracles/int8_floor.py measures
the floor, tools/oracles/check_int8.py runs the gate.
"""
from __future__ import annotations

import numpy as np

GATE_CAP = 0.99  # oracles.md: cosine gate is min(0.99, floor)
DECISION_SHARE = 0.95  # oracles.md: decisions agree on >= 95% of positions, or >= the floor's count
PERCENTILE_MIN_ROWS = 100  # below this many rows the 1st percentile is the minimum
# Task heads (oracles.md: class per image, token per position): the tools/models.json kinds whose
# last axis is a decision. Argmax over a hidden dimension is not a decision, so encoders have none.
DECISION_KINDS = {"image", "whisper-decoder", "ocr-recognizer"}


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of matching rows of two [rows, n] arrays, in float64. Two zero rows are
    identical (1); a zero row against a non-zero one is 0 (nothing in common)."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    dot = np.sum(a * b, axis=1)
    na = np.sqrt(np.sum(a * a, axis=1))
    nb = np.sqrt(np.sum(b * b, axis=1))
    out = np.zeros(a.shape[0], dtype=np.float64)
    both_zero = (na == 0) & (nb == 0)
    some = (na > 0) & (nb > 0)
    out[both_zero] = 1.0
    out[some] = dot[some] / (na[some] * nb[some])
    # NaN or infinity anywhere in a row makes it the worst match, -1 (never silently a pass).
    bad = ~np.isfinite(out) | ~np.all(np.isfinite(a), axis=1) | ~np.all(np.isfinite(b), axis=1)
    out[bad] = -1.0
    return out


def statistics(ours: np.ndarray, ref: np.ndarray, decisions: bool) -> dict:
    """The gated statistics of one float output (oracles.md "The int8 metric"):
      row      1st-percentile cosine over the rows of the last axis (the minimum below 100 rows);
      pooled   for rank >= 3, the minimum cosine of the vectors mean-pooled over the second-to-last axis;
      agree    for task heads, how many argmax decisions over the last axis agree, of `positions`.
    Also the scaled error max|a-b|/max|b| (printed, not gated). A shape mismatch gives the worst values."""
    result = {"row": -1.0, "pooled": None, "agree": None, "positions": None, "scaled": float("inf")}
    if ref.ndim >= 3:
        result["pooled"] = -1.0
    if decisions:
        result["positions"] = int(np.prod(ref.shape[:-1])) if ref.ndim >= 1 else 1
        result["agree"] = 0
    if ours.shape != ref.shape or ref.size == 0 or ref.ndim == 0:
        return result
    last = ref.shape[-1]
    rows = row_cosines(ours.reshape(-1, last), ref.reshape(-1, last))
    result["row"] = float(np.min(rows)) if rows.size < PERCENTILE_MIN_ROWS else float(np.percentile(rows, 1))
    if ref.ndim >= 3:
        pooled_ours = ours.astype(np.float64).mean(axis=-2).reshape(-1, last)
        pooled_ref = ref.astype(np.float64).mean(axis=-2).reshape(-1, last)
        result["pooled"] = float(np.min(row_cosines(pooled_ours, pooled_ref)))
    if decisions:
        result["agree"] = int(np.sum(np.argmax(ours, axis=-1) == np.argmax(ref, axis=-1)))
    scale = float(np.max(np.abs(ref.astype(np.float64))))
    diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    worst = float(np.max(diff)) if not np.isnan(diff).any() else float("inf")
    result["scaled"] = worst / scale if scale > 0 else worst
    return result


def worst_of(stats: list[dict]) -> dict:
    """The floor: the smallest value of each statistic over a set of runs (int8.md)."""
    floor = {}
    for key in ("row", "pooled", "agree"):
        values = [s[key] for s in stats if s.get(key) is not None]
        floor[key] = min(values) if values else None
    floor["positions"] = stats[0].get("positions") if stats else None
    floor["scaled"] = max((s["scaled"] for s in stats), default=None)
    return floor


def verdict(ours: dict, floor: dict) -> list[str]:
    """Reasons the row fails the gate (empty when it passes). oracles.md: cosine statistics at least
    min(0.99, floor); decisions on at least 95% of positions or at least as many as the floor, and a
    single decision must agree, unless ONNX Runtime's own floor runs do not hold it either (floor
    agreement 0 of 1: its decision flips under one-ulp input noise, so agreeing with it would
    mean matching that noise; docs/design.md "The int8 gate where ONNX Runtime saturates")."""
    reasons = []
    gate_row = min(GATE_CAP, floor["row"])
    if not ours["row"] >= gate_row:
        reasons.append(f"row cosine {ours['row']:.4f} < {gate_row:.4f}")
    if ours["pooled"] is not None:
        gate_pooled = min(GATE_CAP, floor["pooled"])
        if not ours["pooled"] >= gate_pooled:
            reasons.append(f"pooled cosine {ours['pooled']:.4f} < {gate_pooled:.4f}")
    if ours["agree"] is not None:
        positions = ours["positions"]
        if positions == 1:
            if ours["agree"] != 1 and floor["agree"] >= 1:
                reasons.append("the single decision differs")
        elif not (ours["agree"] >= DECISION_SHARE * positions or ours["agree"] >= floor["agree"]):
            reasons.append(f"decisions {ours['agree']}/{positions} below 95% and below the floor's {floor['agree']}")
    return reasons
