"""The `exactloss` family of tools/oracles/ops_cases.py (issue 17, branch exactloss): ONNX Runtime
1.31.1 oracle cases for what that branch made exact or added: the float64 forms built on the exact
binary64 exp and log (spec/exact-transcendentals.md section 15), SoftmaxCrossEntropyLoss
(spec/ops/losses.md section 5), BatchNormalization with training_mode = 1 (spec/ops/products-conv.md
section 9.1), Resize with antialias = 1 (section 10.6) and TreeEnsemble (spec/ops/ml.md section 3).
Where ONNX Runtime has no float64 kernel the onnx reference evaluator is the oracle (the case name
says `.onnxref`). Seeded: the family's PCG64 seed (118) is in ops_cases.FAMILIES; new cases are
appended at the end so the cases already stored keep their data.
"""
import numpy as np

SCALED = "scaled1e-4"


def gen_exactloss(f):
    gen_float64_exp_log(f)
    gen_sce(f)
    gen_batchnorm_training(f)
    gen_resize_antialias(f)
    gen_tree_ensemble(f)


def gen_float64_exp_log(f):
    """float64 Exp, Log, Sigmoid, Elu, Selu, Softplus, Softmax, LogSoftmax, ReduceLogSum(Exp)."""
    for op, opset in (("Exp", 13), ("Sigmoid", 13), ("Elu", 6), ("Selu", 6), ("Softplus", 1)):
        for scale in (1.0, 30.0):
            f.add(op, [("x", f.normal((3, 7), scale, np.float64))], opset=opset, tol=SCALED, tag="s%g" % scale)
    f.add("Exp", [("x", np.array([0.0, -0.0, 709.5, -744.0, -750.0, 710.5, np.inf, -np.inf, np.nan, 1e-300]))],
          opset=13, tol=SCALED, tag="limits")
    for scale in (1.0, 1e6):
        x = np.abs(f.normal((4, 5), scale, np.float64)) + 1e-3
        f.add("Log", [("x", x)], opset=13, tol=SCALED, tag="s%g" % scale)
    f.add("Log", [("x", np.array([1.0, 2.0, 0.5, 5e-324, 1.7976931348623157e308, 0.0, -1.0, np.inf, np.nan]))],
          opset=13, tol=SCALED, tag="limits")
    for op in ("Softmax", "LogSoftmax"):
        for axis in (-1, 1):
            f.add(op, [("x", f.normal((2, 5, 3), 4.0, np.float64))], attrs=dict(axis=axis), opset=13, tol=SCALED,
                  tag="axis%d" % axis)
    for op in ("ReduceLogSumExp", "ReduceLogSum"):
        for keep in (0, 1):
            x = f.normal((3, 4, 5), 5.0, np.float64)
            if op == "ReduceLogSum":
                x = np.abs(x) + 0.1
            f.add(op, [("x", x), ("axes", np.array([1], np.int64))], attrs=dict(keepdims=keep), opset=18, tol=SCALED,
                  const=("axes",), tag="k%d" % keep)


def gen_sce(f):
    """SoftmaxCrossEntropyLoss, float32 and float64, every reduction, with weights and ignore_index."""
    i = 0
    for dt in (np.float32, np.float64):
        for reduction in ("none", "sum", "mean"):
            for weighted in (False, True):
                shape = (3, 5) if i % 2 == 0 else (2, 4, 3)
                x = f.normal(shape, 3.0, dt)
                labels = f.rng.integers(0, shape[1], (shape[0],) + shape[2:]).astype(np.int64)
                attrs = dict(reduction=reduction)
                if i % 3 == 0:
                    attrs["ignore_index"] = int(labels.flat[0])
                ins = [("x", x), ("t", labels)]
                if weighted:
                    ins.append(("w", np.abs(f.normal((shape[1],), 1.0, dt)) + 0.1))
                f.add("SoftmaxCrossEntropyLoss", ins, attrs=attrs, opset=13, outputs=2, tol=SCALED,
                      tag="%s_%s%s" % (np.dtype(dt).name, reduction, "_w" if weighted else ""))
                i += 1


def gen_batchnorm_training(f):
    """BatchNormalization, training_mode = 1, opsets 14 and 15: Y, running_mean, running_var."""
    for opset, dt in ((15, np.float32), (14, np.float32), (15, np.float64)):
        for shape in ((2, 3, 4, 5), (4, 2), (1, 3, 7)):
            c = shape[1]
            ins = [("x", f.normal(shape, 2.0, dt)), ("s", f.normal((c,), 1.0, dt)), ("b", f.normal((c,), 1.0, dt)),
                   ("m", f.normal((c,), 1.0, dt)), ("v", np.abs(f.normal((c,), 1.0, dt)) + 0.5)]
            f.add("BatchNormalization", ins, attrs=dict(training_mode=1, momentum=0.8, epsilon=1e-3), opset=opset,
                  outputs=3, tol=SCALED, tag="%s_%s" % (np.dtype(dt).name, "x".join(map(str, shape))))


def gen_resize_antialias(f):
    """Resize, antialias = 1, linear and cubic, scales and sizes, exclude_outside, opset 19."""
    for mode in ("linear", "cubic"):
        for k, scales in enumerate(([1, 1, 0.6, 0.6], [1, 1, 0.5, 0.8], [1, 1, 0.3, 1.0], [1, 1, 0.75, 1.5])):
            x = f.normal((1, 2, 9, 8), 2.0)
            for exclude in (0, 1):
                f.add("Resize", [("x", x), ("roi", None), ("scales", np.array(scales, np.float32))],
                      attrs=dict(mode=mode, antialias=1, exclude_outside=exclude), opset=19, tol=SCALED,
                      tag="%s_scales%d_ex%d" % (mode, k, exclude))
        x = f.normal((1, 1, 10, 7), 2.0)
        f.add("Resize", [("x", x), ("roi", None), ("scales", None), ("sizes", np.array([1, 1, 4, 3], np.int64))],
              attrs=dict(mode=mode, antialias=1), opset=19, tol=SCALED, tag="%s_sizes" % mode)


def gen_tree_ensemble(f):
    """TreeEnsemble (ai.onnx.ml 5): random depth-2 trees over every branch mode, SUM, AVERAGE, MIN,
    MAX, missing values tracked or not, float32 and float64 rows with NaNs."""
    from onnx import helper, numpy_helper
    ml = (("ai.onnx.ml", 5),)
    for k, (dt, aggregate) in enumerate(((np.float32, 1), (np.float64, 1), (np.float32, 0), (np.float32, 2),
                                         (np.float64, 3))):
        features, trees, targets = 4, 3, 2
        modes, splits, feat, tn, tl, fn, fl, track = [], [], [], [], [], [], [], []
        leaf_t, leaf_w, roots, members = [], [], [], []
        for t in range(trees):
            root = len(modes)
            roots.append(root)
            # root -> two children, each with two leaves
            for node in range(3):
                mode = int(f.rng.integers(0, 7))
                modes.append(mode)
                feat.append(int(f.rng.integers(0, features)))
                if mode == 6:
                    # ONNX Runtime serves integer-valued members only.
                    members.extend([float(v) for v in f.rng.integers(-2, 3, 3)] + [np.nan])
                    splits.append(np.nan)
                else:
                    splits.append(float(np.round(f.normal((), 1.0), 1)))
                track.append(int(f.rng.integers(0, 2)))
            tn += [root + 1, len(leaf_t), len(leaf_t) + 2]
            tl += [0, 1, 1]
            fn += [root + 2, len(leaf_t) + 1, len(leaf_t) + 3]
            fl += [0, 1, 1]
            for _ in range(4):
                leaf_t.append(int(f.rng.integers(0, targets)))
                leaf_w.append(float(np.round(f.normal((), 2.0), 2)))
        attrs = dict(aggregate_function=aggregate, post_transform=0, n_targets=targets, tree_roots=roots,
                     nodes_featureids=feat, nodes_truenodeids=tn, nodes_trueleafs=tl, nodes_falsenodeids=fn,
                     nodes_falseleafs=fl, nodes_missing_value_tracks_true=track,
                     nodes_modes=numpy_helper.from_array(np.array(modes, np.uint8), "nodes_modes"),
                     nodes_splits=numpy_helper.from_array(np.array(splits, dt), "nodes_splits"),
                     leaf_targetids=leaf_t,
                     leaf_weights=numpy_helper.from_array(np.array(leaf_w, dt), "leaf_weights"))
        if members:
            attrs["membership_values"] = numpy_helper.from_array(np.array(members, dt), "membership_values")
        # Integer-valued rows (every other case) meet the members and some splits exactly.
        x = np.round(f.normal((6, features), 1.5), 0 if k % 2 == 0 else 1).astype(dt)
        x[1, 0] = np.nan
        x[4, 2] = np.nan
        node = helper.make_node("TreeEnsemble", ["x"], ["y0"], domain="ai.onnx.ml", **attrs)
        f.add("TreeEnsemble", [("x", x)], nodes=[node], domains=ml, tol=SCALED,
              tag="%s_agg%d_%d" % (np.dtype(dt).name, aggregate, k))
