"""The `breadth` family of tools/oracles/ops_cases.py (issue 17): ONNX Runtime 1.31.1 oracle cases
for the operators added beyond the source's table. Each operator gets random cases inside its
domain at two scales, both element types it serves (float32, float64), and one case of special
values (signed zeros, infinities, NaN, the domain's edges and points outside it, where the result
is NaN); float64 outputs come from the onnx reference evaluator, ONNX Runtime having no
float64 kernels for them. Seeded: the family's PCG64 seed is in ops_cases.FAMILIES; new operators are appended at
the end so the cases already stored keep their data.

Semantics: spec/ops/elementwise.md sections 1 and 9 (the trigonometric and hyperbolic family).
"""
import numpy as np

SCALED = "scaled1e-4"

# (operator, opset, how to draw a float64 sample of the domain from a uniform u in [0, 1))
TRIG = [
    ("Tan", 7, lambda u: (u - 0.5) * 3.0),             # inside (-pi/2, pi/2)
    ("Asin", 7, lambda u: (u - 0.5) * 2.0),            # [-1, 1)
    ("Acos", 7, lambda u: (u - 0.5) * 2.0),
    ("Atan", 7, lambda u: (u - 0.5) * 40.0),
    ("Sinh", 9, lambda u: (u - 0.5) * 20.0),
    ("Cosh", 9, lambda u: (u - 0.5) * 20.0),
    ("Asinh", 9, lambda u: (u - 0.5) * 200.0),
    ("Acosh", 9, lambda u: 1.0 + u * 100.0),           # [1, 101)
    ("Atanh", 9, lambda u: (u - 0.5) * 1.98),          # inside (-1, 1)
]

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 1e-30, -1e-30,
                     100.0, -100.0])


def gen_breadth(f):
    for op, opset, draw in TRIG:
        for dt in (np.float32, np.float64):
            # ONNX Runtime 1.31.1 has no float64 kernels for these: the onnx reference evaluator
            # (numpy's functions) is the oracle there.
            wide = dt == np.float64
            for i in range(2):
                shape = f.shape(int(f.rng.integers(1, 4)), 1, 6)
                x = draw(f.rng.random(shape)).astype(dt)
                f.add(op, [("x", x)], opset=opset, tol=SCALED, tag=np.dtype(dt).name, onnxref=wide)
            f.add(op, [("x", SPECIALS.astype(dt))], opset=opset, tol=SCALED, tag="special_" + np.dtype(dt).name,
                  onnxref=wide)
