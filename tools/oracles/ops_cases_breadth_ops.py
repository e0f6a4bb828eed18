"""The `breadth_ops` family of tools/oracles/ops_cases.py (issue 17, operator breadth): ONNX Runtime
1.31.1 oracle cases for the operators added on the `breadth` branch beyond the trigonometric family
(ops_cases_breadth.py, the lead's `breadth` family). Where ONNX Runtime has no kernel for a type
(float64 for several of them) the case takes the onnx reference evaluator (onnxref=True; the family
has reference_fallback set in ops_cases.main()), and its name ends in `.onnxref`. Seeded: the
family's PCG64 seed (112) is in ops_cases.FAMILIES; new operators are appended at the end so the
cases already stored keep their data.

Semantics: spec/ops/elementwise.md section 9 (Swish), spec/ops/products-conv.md section 8.5
(LpPool), spec/ops/norms.md section 10 (LRN), spec/ops/shape-indexing.md section 2 (Compress,
ReverseSequence, Unique, Scatter, TensorScatter, BitCast, CenterCropPad), spec/ops/products-conv.md
sections 11 to 13 (Col2Im, MaxUnpool, Einsum).
"""
import numpy as np

SCALED = "scaled1e-4"


def gen_swish(f):
    # Swish (opset 24): x * sigmoid(alpha * x), float32 from ONNX Runtime, float64 from the onnx
    # reference evaluator when ONNX Runtime has no double kernel.
    for dt in (np.float32, np.float64):
        for alpha in (None, 0.5, -1.25, 3.0):
            x = f.normal(f.shape(int(f.rng.integers(1, 4)), 1, 6), 4.0, dtype=dt)
            attrs = {} if alpha is None else {"alpha": alpha}
            f.add("Swish", [("x", x)], attrs, opset=24, tol=SCALED, tag=np.dtype(dt).name)
        f.add("Swish", [("x", f.special((4, 5), dtype=dt))], {"alpha": 1.5}, opset=24, tol=SCALED,
              tag="special_" + np.dtype(dt).name)


def gen_lp_pool(f):
    # LpPool: 1-D, 2-D and 3-D windows; p 1, 2, 3 and 4; pads, strides, dilations, ceil_mode,
    # auto_pad; opsets 11, 18 and 22.
    configs = [
        (1, dict(kernel_shape=[3]), 18),
        (2, dict(kernel_shape=[2, 2]), 18),
        (2, dict(kernel_shape=[3, 3], p=1), 18),
        (2, dict(kernel_shape=[3, 2], p=3, strides=[2, 1]), 22),
        (2, dict(kernel_shape=[3, 3], pads=[1, 0, 2, 1], p=2), 18),
        (2, dict(kernel_shape=[2, 2], dilations=[2, 1], p=4), 18),
        (2, dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), 18),
        (2, dict(kernel_shape=[3, 2], auto_pad="SAME_UPPER", strides=[2, 1]), 18),
        (2, dict(kernel_shape=[3, 2], auto_pad="SAME_LOWER"), 11),
        (2, dict(kernel_shape=[2, 2], auto_pad="VALID", strides=[1, 2]), 11),
        (3, dict(kernel_shape=[2, 2, 2]), 18),
    ]
    for rank, attrs, opset in configs:
        shape = (int(f.rng.integers(1, 3)), int(f.rng.integers(1, 4))) + f.shape(rank, 4, 7)
        x = f.normal(shape, 2.0)
        f.add("LpPool", [("x", x)], attrs, opset=opset, tol=SCALED, tag="%dd" % rank)
    x = f.normal((1, 2, 5, 6), 2.0, dtype=np.float64)
    f.add("LpPool", [("x", x)], dict(kernel_shape=[2, 3], p=3), opset=18, tol=SCALED, tag="float64")
    f.add("LpPool", [("x", f.special((1, 2, 5, 5)))], dict(kernel_shape=[2, 2]), opset=18, tol=SCALED, tag="special")


def gen_lrn(f):
    # LRN: odd sizes 1 to 7, attribute variants, float32, rank 4. Not here (tests/unit/ops_breadth_test.cpp
    # covers them from the operator text): even sizes (ONNX Runtime's kernel requires an odd size),
    # float64 (no ONNX Runtime kernel), rank 3 and 5 (ONNX Runtime takes rank 4 only); the onnx
    # reference evaluator is no fallback here: its LRN walks the batch axis instead of the channels.
    configs = [
        (dict(size=3), (2, 5, 3, 4)),
        (dict(size=1), (1, 4, 3, 3)),
        (dict(size=5, alpha=0.002, beta=0.75, bias=1.0), (2, 7, 3, 2)),
        (dict(size=3, alpha=0.1, beta=1.3, bias=0.5), (1, 5, 4, 1)),
        (dict(size=7, alpha=0.05, beta=0.5, bias=2.0), (1, 4, 2, 3)),
    ]
    for attrs, shape in configs:
        f.add("LRN", [("x", f.normal(shape, 3.0))], attrs, opset=13, tol=SCALED)
    # Special values without NaN, infinities or squares that overflow: ONNX Runtime keeps a running
    # window sum (adding the entering square, subtracting the leaving one), so an infinite square
    # gives inf - inf = NaN where the operator text gives x / inf = 0, a NaN reaches every later
    # channel (NaN - NaN), and a large square loses the small ones beside it when subtracted back out.
    pool = np.array([0.0, -0.0, 1e-30, -1e-30, 1e-40, -1e-45, 100.0, -100.0, 0.5, -2.5], dtype=np.float32)
    x = f.normal((1, 5, 3, 3), 2.0)
    mask = f.rng.random(x.shape) < 0.35
    x[mask] = pool[f.rng.integers(0, len(pool), x.shape)][mask]
    f.add("LRN", [("x", x)], dict(size=3, alpha=0.001), opset=13, tol=SCALED, tag="special")
    f.add("LRN", [("x", f.normal((1, 4, 3, 3), 3.0))], dict(size=3), opset=1, tol=SCALED, tag="opset1")


def gen_compress(f):
    # Compress: with and without axis (negative too), conditions shorter than the axis and longer
    # with false tails, none true, several element types; the condition fed by the caller or
    # stored as an initializer (then the output shape is known when the session is made).
    for i, (dt, shape, axis) in enumerate([
            (np.float32, (3, 4), 0), (np.float32, (3, 4), 1), (np.float32, (2, 3, 4), -1), (np.int64, (2, 5), None),
            (np.float16, (4, 2, 3), 1), (np.uint8, (6,), 0), (np.bool_, (3, 3), -2), (np.float64, (2, 3, 2), 2)]):
        x = f.normal(shape, 3.0).astype(dt) if dt != np.bool_ else f.rng.random(shape) < 0.5
        extent = int(np.prod(shape)) if axis is None else shape[axis]
        length = [extent, max(extent - 1, 1), extent + 2][i % 3]  # full, short, long with a false tail
        cond = f.rng.random(length) < 0.5
        cond[0] = True
        cond[min(extent, length) - 1] = True
        if length > extent:
            cond[extent:] = False
        attrs = {} if axis is None else {"axis": axis}
        const = ("c",) if i % 2 == 1 else ()
        f.add("Compress", [("x", x), ("c", cond)], attrs, opset=11, const=const, tag=np.dtype(dt).name)
    f.add("Compress", [("x", f.normal((2, 3))), ("c", np.zeros(3, dtype=np.bool_))], {"axis": 1}, opset=9, tag="none_true")


def gen_reverse_sequence(f):
    # ReverseSequence: time-major and batch-major, lengths 0 to the full extent, rank 2 to 4,
    # several element types.
    for dt, shape, batch_axis, time_axis in [
            (np.float32, (4, 3), 1, 0), (np.float32, (3, 5), 0, 1), (np.float32, (5, 2, 3), 1, 0),
            (np.int64, (2, 4, 3, 2), 0, 1), (np.float16, (4, 3), 1, 0), (np.float64, (3, 4, 2), 0, 1),
            (np.int32, (6, 2), 1, 0)]:
        x = f.normal(shape, 4.0).astype(dt)
        lens = f.rng.integers(0, shape[time_axis] + 1, shape[batch_axis]).astype(np.int64)
        lens[0] = shape[time_axis]
        f.add("ReverseSequence", [("x", x), ("lens", lens)], {"batch_axis": batch_axis, "time_axis": time_axis},
              opset=10, tag=np.dtype(dt).name)


def gen_unique(f):
    # Unique: flattened and along an axis (negative too), sorted and in first-occurrence order,
    # all four outputs; values drawn from a few integers so that duplicates are common, signed
    # zeros among the floats (equal by value). No NaN (ONNX Runtime's order of NaN is its own).
    for i, (dt, shape, axis, sorted_) in enumerate([
            (np.float32, (12,), None, 1), (np.float32, (3, 4), None, 0), (np.int64, (10,), None, 1),
            (np.float32, (4, 3), 0, 1), (np.float32, (3, 5), 1, 0), (np.int64, (2, 4, 2), 1, 1),
            (np.float64, (6, 2), -2, 1), (np.int8, (9,), None, 0), (np.float32, (2, 6, 2), -1, 1)]):
        x = f.rng.integers(-2, 3, shape).astype(dt)
        if x.dtype.kind == "f":
            x[f.rng.random(shape) < 0.15] = -0.0
        attrs = {"sorted": sorted_}
        if axis is not None:
            attrs["axis"] = axis
        f.add("Unique", [("x", x)], attrs, opset=11, outputs=4, tag=np.dtype(dt).name)
    f.add("Unique", [("x", np.array([2, 1, 1, 3, 4, 3], dtype=np.float32))], {"sorted": 0}, opset=11,
          outputs=["y", "", "inverse", ""], tag="some_outputs")


def gen_scatter(f):
    # Scatter (opsets 9, 10): ScatterElements without a reduction; axes 0, 1 and negative, negative
    # indices, indices distinct per written line so the result does not depend on write order.
    for opset, dt, shape, upd_shape, axis in [(9, np.float32, (3, 4), (2, 4), 0), (10, np.float32, (3, 5), (3, 2), 1),
                                              (10, np.int64, (2, 3, 4), (2, 3, 3), -1), (9, np.float64, (4, 2), (3, 2), 0)]:
        data = f.normal(shape, 3.0).astype(dt)
        updates = f.normal(upd_shape, 3.0).astype(dt)
        ax = axis % len(shape)
        extent = shape[ax]
        idx = np.moveaxis(np.argsort(f.rng.random(np.moveaxis(np.zeros(upd_shape), ax, -1).shape[:-1] + (extent,)), axis=-1)
                          [..., :upd_shape[ax]], -1, ax).astype(np.int64)
        idx[idx == extent - 1] -= extent  # the last position as a negative index
        attrs = {} if axis == 0 else {"axis": axis}
        f.add("Scatter", [("data", data), ("indices", idx), ("updates", updates)], attrs, opset=opset, tag=np.dtype(dt).name)


def gen_tensor_scatter(f):
    # TensorScatter (opset 24): linear and circular (wrapping) writes, write_indices absent and
    # given, axes -2 (default), 1 and 2, several element types.
    for dt, past_shape, seq, axis, mode, with_indices in [
            (np.float32, (2, 3, 6, 4), 2, None, "linear", True), (np.float32, (2, 5, 3), 3, 1, "linear", False),
            (np.float32, (3, 6, 2), 4, 1, "circular", True), (np.float16, (2, 2, 5, 2), 3, 2, "circular", True),
            (np.int64, (2, 4, 3), 4, -2, "linear", True)]:
        ax = (axis if axis is not None else -2) % len(past_shape)
        upd_shape = list(past_shape)
        upd_shape[ax] = seq
        past = f.normal(past_shape, 3.0).astype(dt)
        update = f.normal(tuple(upd_shape), 3.0).astype(dt)
        inputs = [("past", past), ("update", update)]
        if with_indices:
            hi = past_shape[ax] - seq + 1 if mode == "linear" else past_shape[ax] + 3
            inputs.append(("write", f.rng.integers(0, hi, past_shape[0]).astype(np.int64)))
        attrs = {"mode": mode}
        if axis is not None:
            attrs["axis"] = axis
        f.add("TensorScatter", inputs, attrs, opset=24, tag=mode + "_" + np.dtype(dt).name)


def gen_bit_cast(f):
    # BitCast (opset 26): every width, floats with special values (NaN payloads, signed zeros,
    # infinities) to integers and back, bool to and from 8-bit integers.
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.25, 1e-45, 3.4e38], dtype=np.float32)
    f.add("BitCast", [("x", specials)], {"to": 6}, opset=26, tag="float32_to_int32")
    f.add("BitCast", [("x", f.ints((3, 4), -2**31, 2**31 - 1, np.int32))], {"to": 1}, opset=26, tag="int32_to_float32")
    f.add("BitCast", [("x", f.normal((2, 3), 5.0, np.float64))], {"to": 13}, opset=26, tag="float64_to_uint64")
    f.add("BitCast", [("x", f.ints((5,), -2**63, 2**63 - 1, np.int64))], {"to": 11}, opset=26, tag="int64_to_float64")
    f.add("BitCast", [("x", f.normal((2, 4), 3.0, np.float16))], {"to": 5}, opset=26, tag="float16_to_int16")
    f.add("BitCast", [("x", f.ints((6,), 0, 65536, np.uint16))], {"to": 10}, opset=26, tag="uint16_to_float16")
    f.add("BitCast", [("x", f.ints((7,), -128, 128, np.int8))], {"to": 2}, opset=26, tag="int8_to_uint8")
    f.add("BitCast", [("x", f.rng.random((2, 3)) < 0.5)], {"to": 3}, opset=26, tag="bool_to_int8")
    f.add("BitCast", [("x", f.ints((4,), 0, 2, np.uint8))], {"to": 9}, opset=26, tag="uint8_to_bool")
    f.add("BitCast", [("x", np.float32(-1.5))], {"to": 12}, opset=26, tag="scalar_float32_to_uint32")


def gen_center_crop_pad(f):
    # CenterCropPad (opset 18): crop and pad (odd and even differences), every axis or some (negative
    # axes too), the target shape fed by the caller or stored, several element types.
    for i, (dt, shape, target, axes) in enumerate([
            (np.float32, (5, 6), (3, 4), None), (np.float32, (4, 5), (7, 8), None), (np.float32, (3, 6, 2), (5, 3), [0, 1]),
            (np.int64, (2, 7, 3), (4,), [-2]), (np.float16, (4, 4, 3), (6, 3), [1, 0]), (np.uint8, (5,), (2,), None),
            (np.float64, (3, 3, 3), (1, 6), [2, -3])]):
        x = f.normal(shape, 3.0).astype(dt)
        attrs = {} if axes is None else {"axes": axes}
        const = ("shape",) if i % 2 == 1 else ()
        f.add("CenterCropPad", [("x", x), ("shape", np.array(target, dtype=np.int64))], attrs, opset=18, const=const,
              tag=np.dtype(dt).name)


def gen_col2im(f):
    # Col2Im (opset 18): 1-D to 3-D images, overlapping blocks (stride below the block), pads,
    # dilations, strides.
    for dt, channels, image, block, attrs in [
            (np.float32, 1, [5, 5], [2, 2], {}), (np.float32, 2, [6, 5], [3, 2], {"strides": [2, 1]}),
            (np.float32, 3, [5, 6], [2, 3], {"pads": [1, 0, 1, 2], "dilations": [2, 1]}),
            (np.float32, 2, [7], [3], {"strides": [2], "pads": [1, 1]}), (np.float32, 1, [3, 4, 3], [2, 2, 2], {}),
            (np.float64, 2, [4, 5], [2, 2], {"strides": [1, 2]})]:
        r = len(image)
        pads = attrs.get("pads", [0] * 2 * r)
        strides = attrs.get("strides", [1] * r)
        dil = attrs.get("dilations", [1] * r)
        blocks = 1
        for d in range(r):
            blocks *= (image[d] + pads[d] + pads[d + r] - (dil[d] * (block[d] - 1) + 1)) // strides[d] + 1
        x = f.normal((2, channels * int(np.prod(block)), blocks), 2.0, dtype=dt)
        f.add("Col2Im", [("x", x), ("image", np.array(image, dtype=np.int64)), ("block", np.array(block, dtype=np.int64))],
              attrs, opset=18, const=("image", "block"), tol=SCALED, tag="%dd_%s" % (r, np.dtype(dt).name))


def gen_max_unpool(f):
    # MaxUnpool (opsets 11, 22): 1-D to 3-D, strides and pads, distinct random indices into the
    # unpooled tensor, with and without output_shape.
    for opset, dt, xshape, attrs, extra in [
            (11, np.float32, (1, 2, 3, 3), dict(kernel_shape=[2, 2], strides=[2, 2]), None),
            (22, np.float32, (2, 1, 4), dict(kernel_shape=[3], strides=[2], pads=[1, 0]), None),
            (11, np.float32, (1, 1, 2, 3), dict(kernel_shape=[2, 2], strides=[2, 2]), [0, 0, 1, 1]),
            (22, np.float64, (1, 2, 2, 2, 2), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2]), None),
            (22, np.float16, (2, 2, 3, 2), dict(kernel_shape=[3, 2], strides=[1, 2], pads=[1, 0, 1, 0]), None)]:
        r = len(xshape) - 2
        k, s_ = attrs["kernel_shape"], attrs["strides"]
        pads = attrs.get("pads", [0] * 2 * r)
        unpooled = list(xshape[:2]) + [(xshape[d + 2] - 1) * s_[d] - pads[d] - pads[d + r] + k[d] for d in range(r)]
        size = int(np.prod(unpooled))
        x = f.normal(xshape, 3.0).astype(dt)
        idx = f.rng.permutation(size)[:int(np.prod(xshape))].reshape(xshape).astype(np.int64)
        inputs = [("x", x), ("i", idx)]
        if extra is not None:
            inputs.append(("out", np.array([u + e for u, e in zip(unpooled, extra)], dtype=np.int64)))
        # With output_shape ONNX Runtime reads the indices as positions in the output itself; the
        # onnx reference evaluator (and the backend case test_maxunpool_export_with_output_shape it
        # generated) as positions in the unpooled tensor placed at the output's start, which is the
        # reading this library follows: those cases take the evaluator.
        f.add("MaxUnpool", inputs, attrs, opset=opset, const=("out",), tag=np.dtype(dt).name + ("_output_shape" if extra else ""),
              onnxref=extra is not None)


def gen_einsum(f):
    # Einsum (opset 12): products, transposes, traces and diagonals, full sums, outer products,
    # three operands, ellipsis with broadcasting, the implicit form (upper case before lower case),
    # spaces; f32, f64, i32, i64.
    for eq, shapes, dt in [
            ("ij,jk->ik", [(3, 4), (4, 5)], np.float32), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)], np.float32),
            ("ij->ji", [(3, 5)], np.float32), ("ii", [(4, 4)], np.float32), ("ii->i", [(3, 3)], np.float32),
            ("ij->", [(3, 4)], np.float32), ("i,j->ij", [(3,), (4,)], np.float32),
            ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], np.float32), ("...ij,...jk->...ik", [(2, 1, 3, 4), (1, 3, 4, 2)], np.float32),
            ("Ba,aC", [(3, 4), (4, 2)], np.float32), ("b i j , b j -> b i", [(2, 3, 4), (2, 4)], np.float32),
            ("i...,i...->...", [(3, 2, 2), (3, 1, 2)], np.float32), ("ij,jk->ik", [(3, 4), (4, 2)], np.float64),
            ("ij,ij->i", [(4, 5), (4, 5)], np.int64), ("ki,kj->ij", [(3, 2), (3, 4)], np.int32), ("ijk->kji", [(2, 3, 4)], np.int64)]:
        inputs = []
        for k, sh in enumerate(shapes):
            x = f.normal(sh, 2.0, dtype=dt) if np.dtype(dt).kind == "f" else f.ints(sh, -5, 6, dt)
            inputs.append(("x%d" % k, x))
        f.add("Einsum", inputs, {"equation": eq}, opset=12, tol=SCALED if np.dtype(dt).kind == "f" else "exact",
              tag=np.dtype(dt).name)


def gen_breadth_ops(f):
    gen_swish(f)
    gen_lp_pool(f)
    gen_lrn(f)
    gen_compress(f)
    gen_reverse_sequence(f)
    gen_unique(f)
    gen_scatter(f)
    gen_tensor_scatter(f)
    gen_bit_cast(f)
    gen_center_crop_pad(f)
    gen_col2im(f)
    gen_max_unpool(f)
    gen_einsum(f)
