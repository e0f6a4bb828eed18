"""The `breadth` family of tools/oracles/ops_cases.py (issue 17): ONNX Runtime 1.31.1 oracle cases
for the operators added beyond the source's table. Each operator gets random cases inside its
domain at two scales, both element types it serves (float32, float64), and one case of special
values (signed zeros, infinities, NaN, the domain's edges and points outside it, where the result
is NaN); float64 outputs come from the onnx reference evaluator, ONNX Runtime having no
float64 kernels for them. Seeded: the family's PCG64 seed is in ops_cases.FAMILIES; new operators are appended at
the end so the cases already stored keep their data.

Semantics: spec/ops/elementwise.md sections 1 and 9 (the trigonometric and hyperbolic family),
spec/ops/spectral.md (DFT, STFT, the windows, MelWeightMatrix), spec/ops/grid-sample.md, spec/ops/detection.md, spec/ops/training.md, spec/ops/ml.md.
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
    gen_spectral(f)
    gen_grid_sample(f)
    gen_affine_grid(f)
    gen_nms(f)
    gen_roi_align(f)
    gen_training(f)
    gen_ml(f)


def gen_spectral(f):
    """DFT (opset 20, and 17 with its axis attribute), STFT, the three windows and
    MelWeightMatrix (spec/ops/spectral.md), against ONNX Runtime's float32 kernels."""
    for i in range(6):
        rank = int(f.rng.integers(2, 4))
        shape = [int(f.rng.integers(1, 5)) for _ in range(rank - 1)] + [int(f.rng.integers(1, 3))]
        shape[-2] = int(f.rng.integers(3, 12))
        x = f.normal(tuple(shape))
        axis = -2 if i % 2 == 0 else -(rank)
        if axis == -1 or rank + axis > rank - 2:
            axis = -2
        inverse = i % 3 == 1
        ins = [("x", x), ("len", None), ("axis", np.array(axis, np.int64))]
        f.add("DFT", ins, attrs=dict(inverse=int(inverse)), opset=20, tol=SCALED, const=("axis",), tag="c%d" % i)
    # dft_length pads and cuts; the one-sided forms.
    x = f.normal((2, 9, 1))
    for length in (5, 9, 16):
        f.add("DFT", [("x", x), ("len", np.array(length, np.int64))], attrs=dict(onesided=1), opset=20, tol=SCALED,
              const=("len",), tag="rfft%d" % length)
        f.add("DFT", [("x", x), ("len", np.array(length, np.int64))], opset=20, tol=SCALED, const=("len",),
              tag="len%d" % length)
    spectrum = f.normal((3, 6, 2))
    f.add("DFT", [("x", spectrum)], attrs=dict(onesided=1, inverse=1), opset=20, tol=SCALED, tag="irfft")
    f.add("DFT", [("x", f.normal((2, 4, 7, 2)))], attrs=dict(axis=2), opset=17, tol=SCALED, tag="opset17_axis2")
    # STFT: rectangular and Hann windows, steps that leave a remainder, a complex two-sided signal.
    for step, frame, window in ((3, 8, True), (4, 6, False), (5, 5, True)):
        sig = f.normal((2, 23, 1))
        ins = [("s", sig), ("step", np.array(step, np.int64))]
        const = ["step"]
        if window:
            ins.append(("w", (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame) / frame)).astype(np.float32)))
        else:
            ins.append(("w", None))
        ins.append(("len", np.array(frame, np.int64)))
        const.append("len")
        f.add("STFT", ins, opset=17, tol=SCALED, const=tuple(const), tag="s%d_f%d" % (step, frame))
    f.add("STFT", [("s", f.normal((1, 12, 2))), ("step", np.array(2, np.int64)), ("w", None),
                   ("len", np.array(4, np.int64))], attrs=dict(onesided=0), opset=17, tol=SCALED,
          const=("step", "len"), tag="complex")
    for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        # Blackman's windows of one and two samples are 0.42 - 0.5 + 0.08 = 0 up to rounding
        # (ONNX Runtime's float32 gives 1.5e-8, binary64 -1.4e-17): no relative bound can judge them.
        for size in ((1, 2, 7, 32) if op != "BlackmanWindow" else (7, 32)):
            for periodic in (0, 1):
                f.add(op, [("size", np.array(size, np.int64))], attrs=dict(periodic=periodic), opset=17, tol=SCALED,
                      const=("size",), tag="n%d_p%d" % (size, periodic))
        f.add(op, [("size", np.array(10, np.int32))], attrs=dict(output_datatype=11), opset=17, tol=SCALED,
              const=("size",), tag="double")
    for bins, length, rate, lo, hi in ((8, 64, 16000, 0.0, 8000.0), (5, 33, 8000, 100.0, 3000.0), (20, 512, 22050, 20.0, 11000.0)):
        ins = [("b", np.array(bins, np.int64)), ("n", np.array(length, np.int64)), ("r", np.array(rate, np.int64)),
               ("lo", np.array(lo, np.float32)), ("hi", np.array(hi, np.float32))]
        f.add("MelWeightMatrix", ins, opset=17, tol=SCALED, const=("b", "n", "r", "lo", "hi"), tag="b%d" % bins)


def gen_grid_sample(f):
    """GridSample (spec/ops/grid-sample.md): every mode, padding and align_corners at opset 16
    (old mode names) and 20, positions reaching past the borders, volumetric linear and nearest."""
    old = {"linear": "bilinear", "cubic": "bicubic", "nearest": "nearest"}
    for mode in ("linear", "nearest", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                x = f.normal((2, 3, 5, 6))
                grid = (f.rng.random((2, 4, 7, 2)) * 2.8 - 1.4).astype(np.float32)
                opset = 16 if (align + len(padding)) % 2 == 0 else 20
                name = old[mode] if opset == 16 else mode
                f.add("GridSample", [("x", x), ("grid", grid)],
                      attrs=dict(mode=name, padding_mode=padding, align_corners=align), opset=opset, tol=SCALED,
                      tag="%s_%s_a%d" % (mode, padding, align))
    for mode in ("linear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            x = f.normal((1, 2, 3, 4, 5))
            grid = (f.rng.random((1, 2, 3, 4, 3)) * 2.6 - 1.3).astype(np.float32)
            f.add("GridSample", [("x", x), ("grid", grid)], attrs=dict(mode=mode, padding_mode=padding), opset=20,
                  tol=SCALED, tag="volumetric_%s_%s" % (mode, padding))


def gen_affine_grid(f):
    """AffineGrid (spec/ops/grid-sample.md section 5): 2-D and 3-D, both align_corners, sizes of 1."""
    for align in (0, 1):
        for size in ((2, 3, 4, 5), (1, 1, 1, 6), (2, 1, 3, 2, 4), (1, 2, 1, 1, 3)):
            r = len(size) - 2
            theta = f.normal((size[0], r, r + 1))
            # An axis of one sample with align_corners = 1: ONNX Runtime places it at +1, PyTorch's
            # linspace and ONNX's reference at -1 (the page's choice): the onnx evaluator judges it.
            onnxref = align == 1 and 1 in size[2:]
            f.add("AffineGrid", [("theta", theta), ("size", np.array(size, np.int64))],
                  attrs=dict(align_corners=align), opset=20, tol=SCALED, const=("size",),
                  tag="%dd_a%d_%s" % (r, align, "x".join(map(str, size))), onnxref=onnxref)


def gen_nms(f):
    """NonMaxSuppression (spec/ops/detection.md): random boxes in both box formats, thresholds,
    limits, several batches and classes."""
    for i in range(8):
        batches, classes, count = int(f.rng.integers(1, 3)), int(f.rng.integers(1, 4)), int(f.rng.integers(1, 30))
        corner = f.rng.random((batches, count, 2)).astype(np.float32) * 10
        size = f.rng.random((batches, count, 2)).astype(np.float32) * 4 + 0.1
        center = i % 2 == 1
        if center:
            boxes = np.concatenate([corner, size], axis=2)
        else:
            # Corners in either order: flip some boxes.
            other = corner + size
            flip = f.rng.random((batches, count, 1)) < 0.3
            boxes = np.concatenate([np.where(flip, other, corner), np.where(flip, corner, other)], axis=2)
        scores = f.rng.random((batches, classes, count)).astype(np.float32)
        ins = [("boxes", boxes.astype(np.float32)), ("scores", scores),
               ("max", np.array(int(f.rng.integers(0, 12)), np.int64)),
               ("iou", np.array(float(f.rng.random() * 0.8), np.float32))]
        if i % 3 != 0:
            ins.append(("score", np.array(float(f.rng.random() * 0.5), np.float32)))
        f.add("NonMaxSuppression", ins, attrs=dict(center_point_box=int(center)), opset=11,
              const=tuple(n for n, _ in ins[2:]), tag="c%d" % i)


def gen_roi_align(f):
    """RoiAlign (spec/ops/detection.md section 2): both modes, both coordinate modes and opset 10,
    regions reaching past the map, sampling_ratio 0 and 2."""
    for i in range(8):
        x = f.normal((2, 3, 10, 12))
        count = int(f.rng.integers(1, 6))
        xy = f.rng.random((count, 2)) * 12 - 1.5
        wh = f.rng.random((count, 2)) * 8 + 0.2
        rois = np.concatenate([xy, xy + wh], axis=1).astype(np.float32)
        index = f.rng.integers(0, 2, (count,)).astype(np.int64)
        attrs = dict(mode="max" if i % 2 else "avg", output_height=int(f.rng.integers(1, 4)),
                     output_width=int(f.rng.integers(1, 5)), sampling_ratio=int((i // 2) % 2 * 2),
                     spatial_scale=float([1.0, 0.5][i % 2 == 0 and i > 3]))
        opset = 10 if i in (2, 5) else 16
        if opset == 16:
            attrs["coordinate_transformation_mode"] = "half_pixel" if i % 3 else "output_half_pixel"
        f.add("RoiAlign", [("x", x), ("rois", rois), ("index", index)], attrs=attrs, opset=opset, tol=SCALED,
              tag="r%d" % i)


def gen_training(f):
    """Adagrad, Momentum, Adam (spec/ops/training.md) against the onnx reference evaluator: ONNX
    Runtime has no kernels for the ai.onnx.preview.training domain."""
    from onnx import helper
    domain = "ai.onnx.preview.training"
    specs = [("Adagrad", 3, dict(decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.01)),
             ("Momentum", 3, dict(alpha=0.9, beta=0.5, norm_coefficient=0.02, mode="standard")),
             ("Momentum", 3, dict(alpha=0.8, beta=0.7, norm_coefficient=0.0, mode="nesterov")),
             ("Adam", 4, dict(alpha=0.85, beta=0.95, epsilon=1e-4, norm_coefficient=0.01, norm_coefficient_post=0.02))]
    for op, groups, attrs in specs:
        for n, t in ((1, 0), (2, 3)):
            shapes = [f.shape(int(f.rng.integers(1, 3)), 1, 5) for _ in range(n)]
            ins = [("r", np.array(0.1, np.float32)), ("t", np.array(t, np.int64))]
            for g in range(groups):
                for i, s in enumerate(shapes):
                    data = f.normal(s)
                    if (op == "Adagrad" and g == 2) or (op == "Adam" and g == 3):
                        data = np.abs(data)  # accumulated squares are not negative
                    ins.append(("in%d_%d" % (g, i), data))
            names = [name for name, _ in ins]
            outs = ["out%d" % k for k in range((groups - 1) * n)]
            node = helper.make_node(op, names, outs, domain=domain, **attrs)
            f.add(op, ins, outputs=outs, nodes=[node], onnxref=True, tol=SCALED, domains=((domain, 1),),
                  tag="%s_n%d_t%d" % (attrs.get("mode", op), n, t))


def gen_ml(f):
    """Binarizer and ArrayFeatureExtractor of ai.onnx.ml (spec/ops/ml.md) against ONNX Runtime."""
    from onnx import helper
    ml = (("ai.onnx.ml", 1),)
    for dt in (np.float32, np.float64, np.int64, np.int32):
        x = f.normal((3, 5), 3.0).astype(dt) if dt in (np.float32, np.float64) else f.ints((3, 5), -5, 6, dt)
        node = helper.make_node("Binarizer", ["x"], ["y0"], domain="ai.onnx.ml", threshold=0.5)
        f.add("Binarizer", [("x", x)], nodes=[node], domains=ml, tag=np.dtype(dt).name)
    for xshape, ishape in (((7,), (3,)), ((3, 6), (1, 4)), ((2, 3, 5), (2, 2)), ((4, 4), (0,))):
        x = f.normal(xshape)
        index = f.rng.integers(0, xshape[-1], ishape).astype(np.int64)
        node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y0"], domain="ai.onnx.ml")
        f.add("ArrayFeatureExtractor", [("x", x), ("i", index)], nodes=[node], domains=ml,
              tag="x%s_i%s" % ("x".join(map(str, xshape)), "x".join(map(str, ishape))))
