"""The `newattn` family of tools/oracles/ops_cases.py (issue 17, branch newattn): ONNX Runtime 1.31.1
oracle cases for DeformConv (spec/ops/products-conv.md section 15) beyond the four backend shapes:
groups, offset groups, strides, dilations, asymmetric pads, rectangular kernels, batch of two, the
optional bias and mask, offsets that move taps across and far past the borders, whole-pixel offsets
(every sample on the grid), and both opsets (19, 22). Seeded: the family's PCG64 seed (117) is in
ops_cases.FAMILIES; new cases are appended at the end so the cases already stored keep their data.

LinearAttention and CausalConvWithState (opset 27) have no cases here: ONNX Runtime 1.31.1 does not
load opset 27 models. Their oracles are the backend data and the backend's `_expanded` twins.

Inputs are finite: with an infinity in the plane ONNX Runtime 1.31.1 answers NaN even for samples
whose corners all lie outside (spec/ops/products-conv.md section 15, "The choice at the border").
"""
import numpy as np

SCALED = "scaled1e-4"


def _out_extent(size, kernel, stride, pad_begin, pad_end, dilation):
    return (size + pad_begin + pad_end - dilation * (kernel - 1) - 1) // stride + 1


def _deform_case(f, n, c, m, hw, kernel, group=1, offset_group=1, strides=(1, 1), pads=(0, 0, 0, 0),
                 dilations=(1, 1), bias=False, mask=False, offset_scale=1.5, whole=False, opset=22, tag="",
                 dtype=np.float32):
    (h, w), (kh, kw) = hw, kernel
    oh = _out_extent(h, kh, strides[0], pads[0], pads[2], dilations[0])
    ow = _out_extent(w, kw, strides[1], pads[1], pads[3], dilations[1])
    x = f.normal((n, c, h, w))
    weight = f.normal((m, c // group, kh, kw))
    shape = (n, offset_group * kh * kw * 2, oh, ow)
    if whole:
        offset = f.rng.integers(-2, 3, shape).astype(np.float32)
    else:
        offset = f.normal(shape, offset_scale)
    inputs = [("x", x), ("w", weight), ("offset", offset),
              ("b", f.normal((m,)) if bias else None),
              ("mask", f.rng.random((n, offset_group * kh * kw, oh, ow)).astype(np.float32) if mask else None)]
    attrs = dict(kernel_shape=[kh, kw], strides=list(strides), pads=list(pads), dilations=list(dilations))
    if group != 1:
        attrs["group"] = group
    if offset_group != 1:
        attrs["offset_group"] = offset_group
    inputs = [(name, None if a is None else a.astype(dtype)) for name, a in inputs]
    f.add("DeformConv", inputs, attrs=attrs, opset=opset, tol=SCALED, tag=tag)


def gen_newattn(f):
    _deform_case(f, 1, 1, 1, (3, 3), (2, 2), tag="basic")
    _deform_case(f, 2, 3, 4, (5, 6), (3, 3), pads=(1, 1, 1, 1), bias=True, tag="pad_bias_batch2")
    _deform_case(f, 1, 4, 6, (6, 5), (3, 2), group=2, bias=True, mask=True, tag="group2_mask")
    _deform_case(f, 1, 4, 2, (5, 5), (2, 2), offset_group=2, mask=True, tag="offset_group2_mask")
    _deform_case(f, 2, 6, 4, (7, 6), (3, 3), group=2, offset_group=3, strides=(2, 1), pads=(1, 0, 2, 1),
                 tag="group2_offset_group3_stride")
    _deform_case(f, 1, 2, 3, (7, 7), (3, 3), dilations=(2, 1), pads=(2, 1, 2, 1), mask=True, tag="dilation")
    _deform_case(f, 1, 2, 2, (4, 5), (2, 3), strides=(2, 2), offset_scale=6.0, bias=True, tag="far_offsets")
    _deform_case(f, 1, 3, 3, (5, 5), (3, 3), pads=(1, 1, 1, 1), whole=True, tag="whole_pixel_offsets")
    _deform_case(f, 1, 2, 2, (4, 4), (1, 1), mask=True, tag="kernel1x1")
    _deform_case(f, 2, 2, 2, (5, 4), (2, 2), pads=(0, 1, 1, 0), bias=True, mask=True, opset=19, tag="opset19")
    _deform_case(f, 1, 8, 4, (4, 4), (2, 2), group=4, offset_group=2, pads=(1, 1, 0, 0), tag="group4")
    # float64 (appended: the cases above keep their data).
    _deform_case(f, 1, 4, 2, (5, 6), (3, 2), group=2, offset_group=2, pads=(1, 0, 1, 1), bias=True, mask=True,
                 dtype=np.float64, tag="float64")
