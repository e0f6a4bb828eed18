"""CTC decoding of per-step class scores (spec/ctc.md; include/onemodel/ctc.hpp).

Scores are ``[steps, classes]`` (``greedy_decode`` also takes a batch ``[batch, steps, classes]``),
logits or natural-log probabilities, as float32 (other float arrays are converted once). The results
are the same bits on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from . import _core
from ._errors import invalid_argument

_KINDS = {"logits": 0, "log_probabilities": 1}


@dataclass(frozen=True)
class CtcRun:
    """One emitted label: the steps [first_step, last_step] of its run and the largest probability
    of its class over the run."""

    label: int
    first_step: int
    last_step: int
    confidence: float


@dataclass(frozen=True)
class GreedyResult:
    runs: Tuple[CtcRun, ...]
    confidence: float                 # mean of the run confidences; 0 when nothing is emitted
    step_probabilities: np.ndarray    # float32 [steps]: p of each step's best class, blank included

    @property
    def labels(self) -> List[int]:
        return [r.label for r in self.runs]


@dataclass(frozen=True)
class BeamHypothesis:
    labels: List[int]
    log_probability: float  # logadd(pb, pnb) of the prefix after the last step
    confidence: float       # exp(log_probability / len(labels)); 0 for the empty text


def _kind(kind: str) -> int:
    if kind not in _KINDS:
        raise invalid_argument(f"kind takes 'logits' or 'log_probabilities', not {kind!r}")
    return _KINDS[kind]


def _scores(scores, ndim: Tuple[int, ...]) -> np.ndarray:
    array = np.asarray(scores)
    if array.ndim not in ndim:
        raise invalid_argument(f"scores must have {' or '.join(map(str, ndim))} dimensions, not {array.ndim}")
    if array.dtype.kind not in "fiu":
        raise invalid_argument(f"scores must be numbers, not {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float32)


def _index(name: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise invalid_argument(f"{name} takes a non-negative integer, not {value!r}")
    return int(value)


def _greedy_one(scores: np.ndarray, kind: int, blank: int) -> GreedyResult:
    runs, confidence, steps = _core.ctc_greedy(scores, kind, blank)
    return GreedyResult(tuple(CtcRun(*r) for r in runs), confidence, np.asarray(steps, dtype=np.float32))


def greedy_decode(scores, kind: str = "logits", blank: int = 0):
    """Best-path decoding: a GreedyResult for ``[steps, classes]``, a list of them for a batch."""
    array = _scores(scores, (2, 3))
    k, b = _kind(kind), _index("blank", blank)
    if array.ndim == 2:
        return _greedy_one(array, k, b)
    return [_greedy_one(array[i], k, b) for i in range(array.shape[0])]


def beam_search(scores, beam_width: int = 16, top_n: int = 1, kind: str = "logits",
                blank: int = 0) -> List[BeamHypothesis]:
    """Prefix beam search of one sequence ``[steps, classes]``: the best ``top_n`` texts, best first
    (``beam_width`` in [1, 4096], ``top_n`` in [1, beam_width])."""
    array = _scores(scores, (2,))
    found = _core.ctc_beam(array, _kind(kind), _index("blank", blank), _index("beam_width", beam_width),
                           _index("top_n", top_n))
    return [BeamHypothesis(list(labels), lp, conf) for labels, lp, conf in found]
