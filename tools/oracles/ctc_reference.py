#!/usr/bin/env python3
"""An independent double-precision CTC decoder (spec/ctc.md), numpy only, and the case file the
C++ tests compare with (tests/data/ctc/cases.json).

It is written from the rules, not from the C++ code: greedy best path with the page's tie and NaN
rules, p(t) = 1 / sum_j exp(z_j - z_best) in double (the page's identity), a dictionary-based
prefix beam search with math.exp / math.log, and for small sizes the exact best text found by
enumerating every alignment. The C++ decoder uses float32 exact-mode softmax for greedy and its own
deterministic exp/ln for the beam, so the tests compare within tolerances: probabilities 2e-6,
beam log probabilities 1e-9 (spec/ctc.md section 7).

    python3 tools/oracles/ctc_reference.py --write tests/data/ctc/cases.json
"""
import argparse
import itertools
import json
import math
import sys

import numpy as np

NEG_INF = float("-inf")


def best_class(row):
    best = 0
    for j in range(1, len(row)):
        v = row[j]
        if math.isnan(v):
            continue
        if math.isnan(row[best]) or v > row[best]:
            best = j
    return best


def step_probability(row, best, kind):
    if kind == "logits":
        zb = row[best]
        if any(math.isnan(v) for v in row) or any(v == math.inf for v in row) or zb == NEG_INF:
            return math.nan
        return 1.0 / sum(math.exp(float(v) - float(zb)) for v in row)
    v = float(row[best])
    if math.isnan(v):
        return math.nan
    return min(math.exp(v), 1.0)


def greedy(scores, kind, blank):
    runs = []
    steps = []
    previous = None
    for t, row in enumerate(scores):
        b = best_class(row)
        p = step_probability(row, b, kind)
        steps.append(p)
        if b != blank:
            if b == previous:
                run = runs[-1]
                run["last"] = t
                if math.isnan(run["confidence"]) or (not math.isnan(p) and p > run["confidence"]):
                    if not math.isnan(p):
                        run["confidence"] = p
            else:
                runs.append({"label": b, "first": t, "last": t, "confidence": p})
        previous = b
    conf = 0.0 if not runs else sum(r["confidence"] for r in runs) / len(runs)
    return {"runs": runs, "confidence": conf, "step_probabilities": steps}


def log_probs(row, kind):
    row = [float(v) for v in row]
    if kind == "logprobs":
        return row
    m = max(row)
    s = sum(math.exp(v - m) for v in row)
    return [(v - m) - math.log(s) for v in row]


def logadd(a, b):
    if a < b:
        a, b = b, a
    if b == NEG_INF or b - a < -40:
        return a
    return a + math.log1p(math.exp(b - a))


def beam_search(scores, kind, blank, width, top_n):
    created = {(): 0}
    beam = [((), 0.0, NEG_INF)]
    for row in scores:
        lp = log_probs(row, kind)
        nxt = {}

        def add(prefix, which, value):
            if value == NEG_INF:
                return
            if prefix not in created:
                created[prefix] = len(created)
            pb, pnb = nxt.get(prefix, (NEG_INF, NEG_INF))
            if which == "b":
                pb = logadd(pb, value)
            else:
                pnb = logadd(pnb, value)
            nxt[prefix] = (pb, pnb)

        for prefix, pb, pnb in beam:
            last = prefix[-1] if prefix else None
            total = logadd(pb, pnb)
            add(prefix, "b", total + lp[blank])
            if last is not None:
                add(prefix, "nb", pnb + lp[last])
            for j in range(len(lp)):
                if j == blank:
                    continue
                add(prefix + (j,), "nb", (pb if j == last else total) + lp[j])
        ranked = sorted(nxt.items(), key=lambda kv: (-logadd(*kv[1]), created[kv[0]]))
        beam = [(p, v[0], v[1]) for p, v in ranked[:width]]
    out = []
    for prefix, pb, pnb in beam[:top_n]:
        lpv = logadd(pb, pnb)
        out.append({"labels": list(prefix), "log_probability": lpv,
                    "confidence": 0.0 if not prefix else math.exp(lpv / len(prefix))})
    return out


def exhaustive(scores, kind, blank):
    """The best text over the sum of all alignments, by enumeration (small sizes only)."""
    lps = [log_probs(row, kind) for row in scores]
    classes = len(scores[0])
    totals = {}
    for path in itertools.product(range(classes), repeat=len(scores)):
        lp = sum(lps[t][c] for t, c in enumerate(path))
        if lp == NEG_INF:
            continue
        text = []
        prev = None
        for c in path:
            if c != prev and c != blank:
                text.append(c)
            prev = c
        key = tuple(text)
        totals[key] = logadd(totals.get(key, NEG_INF), lp)
    best = max(totals.items(), key=lambda kv: kv[1])
    return {"labels": list(best[0]), "log_probability": best[1], "distinct_texts": len(totals)}


# The page's deterministic double exp and ln (spec/ctc.md section 4), written again here from the
# text: Python floats are IEEE doubles with one rounding per operation and no fused multiply-add,
# so these give the bits every platform must give. The C++ test compares bit for bit.
def det_exp(x):
    if not (x > -700.0):
        return 0.0
    if x > 700.0:
        x = 700.0
    k = math.floor(x * 1.4426950408889634 + 0.5)
    r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10
    p = 1.0 / math.factorial(13)
    for n in range(12, -1, -1):
        p = p * r + 1.0 / math.factorial(n)
    return math.ldexp(p, int(k))


def det_ln(x):
    if x == 0.0:
        return NEG_INF
    e = 0
    if x < 2.2250738585072014e-308:
        x = x * 2.0 ** 54
        e = -54
    m, ex = math.frexp(x)  # x = m * 2^ex, m in [0.5, 1)
    m, e = m * 2.0, e + ex - 1
    if m > 1.4142135623730951:
        m, e = m * 0.5, e + 1
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    q = 1.0 / 19.0
    for j in range(8, -1, -1):
        q = q * z + 1.0 / (2 * j + 1)
    return e * 0.6931471805599453 + 2.0 * s * q


def hex_bits(v):
    import struct
    return struct.pack(">d", v).hex()


def math_points(seed):
    rng = np.random.default_rng(seed + 1)
    xs = [0.0, 1.0, -1.0, 0.5, 699.9, 700.0, 700.5, -699.9, -700.0, 1e-300, 5e-324, 2.0 ** -1030, 1.4142135623730951,
          1.4142135623730954, 0.7071067811865476, 123456.789]
    xs += [float(v) for v in rng.uniform(-50, 50, 24)] + [float(v) for v in np.exp(rng.uniform(-700, 700, 24))]
    out = []
    for x in xs:
        entry = {"x": hex_bits(x), "exp": hex_bits(det_exp(x))}
        if x >= 0:
            entry["ln"] = hex_bits(det_ln(x))
        out.append(entry)
    return out


def encode(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def make_cases(seed=20261203, count=40):
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(count):
        steps = int(rng.integers(1, 8))
        classes = int(rng.integers(2, 6))
        kind = "logits" if i % 3 != 2 else "logprobs"
        blank = 0 if i % 4 != 3 else int(rng.integers(0, classes))
        if i % 5 == 1:
            # quantized logits: ties between classes, for the lowest-index rule (greedy only)
            x = rng.integers(-2, 3, size=(steps, classes)).astype(np.float32)
        else:
            x = (rng.standard_normal((steps, classes)) * 2.0).astype(np.float32)
        if kind == "logprobs":
            x = x.astype(np.float64)
            x = (x - x.max(axis=1, keepdims=True))
            x = (x - np.log(np.exp(x).sum(axis=1, keepdims=True))).astype(np.float32)
        scores = [[float(v) for v in row] for row in x]
        case = {"name": f"case{i:02d}", "kind": kind, "blank": blank, "steps": steps, "classes": classes,
                "scores": [[encode(v) for v in row] for row in scores],
                "greedy": greedy(scores, kind, blank)}
        ties = i % 5 == 1
        if not ties:
            case["beams"] = []
            for width in (1, 3, 64):
                top_n = min(width, 3)
                case["beams"].append({"width": width, "top_n": top_n,
                                      "result": beam_search(scores, kind, blank, width, top_n)})
            if classes ** steps <= 200000:
                ex = exhaustive(scores, kind, blank)
                case["exhaustive"] = ex
                if ex["distinct_texts"] <= 4096:
                    # The page's claim, checked on the oracle itself first: a beam as wide as the
                    # number of distinct prefixes finds the exhaustive best text.
                    wide = beam_search(scores, kind, blank, 4096, 1)[0]
                    assert wide["labels"] == ex["labels"], (case["name"], wide, ex)
                    assert abs(wide["log_probability"] - ex["log_probability"]) <= 1e-12, (case["name"], wide, ex)
        cases.append(case)
    # NaN and infinities: greedy only (the beam search refuses NaN and +inf).
    nan_case = [[0.5, math.nan, 0.25], [math.nan, math.nan, math.nan], [NEG_INF, 1.0, 1.0], [math.inf, 0.0, 1.0]]
    cases.append({"name": "nan_inf", "kind": "logits", "blank": 0, "steps": 4, "classes": 3,
                  "scores": [[encode(v) for v in r] for r in nan_case], "greedy": greedy(nan_case, "logits", 0)})
    return cases


def fix_json(obj):
    if isinstance(obj, float):
        return encode(obj)
    if isinstance(obj, list):
        return [fix_json(v) for v in obj]
    if isinstance(obj, dict):
        return {k: fix_json(v) for k, v in obj.items()}
    return obj


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", help="write the case file here")
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()
    cases = make_cases(args.seed)
    text = json.dumps({"format": "onemodel-ctc-cases-1", "generator": "tools/oracles/ctc_reference.py",
                       "seed": args.seed, "cases": fix_json(cases), "math": math_points(args.seed)}, indent=1, allow_nan=False)
    if args.write:
        with open(args.write, "w") as f:
            f.write(text + "\n")
        print(f"ctc_reference.py: {len(cases)} cases -> {args.write}", file=sys.stderr)
    else:
        print(text)


if __name__ == "__main__":
    main()
