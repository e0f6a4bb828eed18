"""onemodel.ctc on the cases of tests/data/ctc/cases.json, written by the independent Python
decoder tools/oracles/ctc_reference.py (the C++ test tests/unit/ctc_test.cpp reads the same file
with the same tolerances)."""

import json
import math

import numpy as np
import pytest

import onemodel
from conftest import ROOT

CASES = json.loads((ROOT / "tests" / "data" / "ctc" / "cases.json").read_text())["cases"]


def number(v):
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else v


def close(got, want, tol):
    want = number(want)
    return math.isnan(got) if math.isnan(want) else abs(got - want) <= tol


def scores_of(case):
    s = np.array([[number(v) for v in row] for row in case["scores"]], dtype=np.float32)
    assert s.shape == (case["steps"], case["classes"])
    return s


KIND = {"logits": "logits", "logprobs": "log_probabilities"}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_greedy(case):
    r = onemodel.ctc.greedy_decode(scores_of(case), kind=KIND[case["kind"]], blank=case["blank"])
    want = case["greedy"]
    assert [(x.label, x.first_step, x.last_step) for x in r.runs] == [
        (w["label"], w["first"], w["last"]) for w in want["runs"]]
    for x, w in zip(r.runs, want["runs"]):
        assert close(x.confidence, w["confidence"], 2e-6)
    assert close(r.confidence, want["confidence"], 2e-6)
    assert r.step_probabilities.dtype == np.float32 and len(r.step_probabilities) == case["steps"]
    for got, w in zip(r.step_probabilities, want["step_probabilities"]):
        assert close(float(got), w, 2e-6)
    assert r.labels == [w["label"] for w in want["runs"]]


BEAM_CASES = [c for c in CASES if "beams" in c]


@pytest.mark.parametrize("case", BEAM_CASES, ids=[c["name"] for c in BEAM_CASES])
def test_beam_search(case):
    s = scores_of(case)
    for b in case["beams"]:
        got = onemodel.ctc.beam_search(s, beam_width=b["width"], top_n=b["top_n"], kind=KIND[case["kind"]],
                                       blank=case["blank"])
        assert [h.labels for h in got] == [w["labels"] for w in b["result"]]
        for h, w in zip(got, b["result"]):
            assert abs(h.log_probability - number(w["log_probability"])) <= 1e-9
            assert close(h.confidence, w["confidence"], 1e-9)
    ex = case.get("exhaustive")
    if ex is not None and ex["distinct_texts"] <= 4096:
        best = onemodel.ctc.beam_search(s, beam_width=4096, kind=KIND[case["kind"]], blank=case["blank"])[0]
        assert best.labels == ex["labels"]
        assert abs(best.log_probability - number(ex["log_probability"])) <= 1e-9


def test_case_counts():
    assert len(CASES) == 41 and len(BEAM_CASES) == 32


def test_batch_greedy_is_each_row():
    a, b = scores_of(CASES[0]), scores_of(CASES[0])[::-1]
    batch = onemodel.ctc.greedy_decode(np.stack([a, b]))
    assert [r.labels for r in batch] == [onemodel.ctc.greedy_decode(a).labels, onemodel.ctc.greedy_decode(b).labels]
