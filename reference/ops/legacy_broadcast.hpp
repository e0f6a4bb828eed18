// Opset 6 and earlier binary operators with the `broadcast` and `axis` attributes
// (spec/ops/elementwise.md section 11, from the ONNX text of Add-6, Sub-6, Mul-6, Div-6, Pow-1,
// Gemm-6's C): the right operand is aligned with the left one at `axis` instead of NumPy's
// trailing alignment. The wrapper shapes the right operand as the NumPy operand with the same
// meaning and runs the current kernel, so both engines and both modes keep one arithmetic.
#pragma once

#include <memory>

#include "core/graph/op_kernel.hpp"

namespace onemodel {

// The right operand's shape as a NumPy-broadcastable shape of the left operand's rank, per the
// legacy rule: broadcast = 0 needs equal shapes; broadcast = 1 takes a one-element operand of
// any rank up to the left's, or an operand whose extents equal (or are 1 at) the left's extents
// from `axis` on (default: suffix matching). Throws SessionError(InvalidModel) naming the node.
Shape legacy_aligned_shape(const NodeInfo& node, const Shape& left, const Shape& right);

// PRelu-6's slope (ONNX PRelu-6: "If Slope is of size 1, the value is shared across different
// channels"): one element, the input's own shape, or a 1-D slope of the channel count, which
// meets axis 1 of X. Throws SessionError(InvalidModel) naming the node otherwise.
Shape legacy_slope_shape(const NodeInfo& node, const Shape& x, const Shape& slope);

using LegacyAlignment = Shape (*)(const NodeInfo& node, const Shape& left, const Shape& right);

// Wraps `current` (the kernel of the operator's first NumPy-broadcasting version) so that its
// input `right_input` is seen with the shape `align` gives, a reshaped view of the same values.
std::unique_ptr<OpKernel> make_legacy_broadcast(std::unique_ptr<OpKernel> current, std::size_t left_input,
                                                std::size_t right_input, LegacyAlignment align = legacy_aligned_shape);

}  // namespace onemodel
