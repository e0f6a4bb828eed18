// The opset 6 (Pow: 1 to 6) forms of operators whose current kernels start at opset 7
// (spec/ops/elementwise.md section 11, spec/ops/conv.md for Gemm and BatchNormalization): each is
// the current kernel with the legacy attributes read here, so no arithmetic is written twice.
#include "core/graph/node_info.hpp"
#include "reference/ops/legacy_broadcast.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_add(const NodeInfo&);
std::unique_ptr<OpKernel> make_sub(const NodeInfo&);
std::unique_ptr<OpKernel> make_mul(const NodeInfo&);
std::unique_ptr<OpKernel> make_div(const NodeInfo&);
std::unique_ptr<OpKernel> make_pow(const NodeInfo&);
std::unique_ptr<OpKernel> make_prelu(const NodeInfo&);
std::unique_ptr<OpKernel> make_gemm_7(const NodeInfo&);
std::unique_ptr<OpKernel> make_batch_normalization_7(const NodeInfo&);

std::unique_ptr<OpKernel> make_add_6(const NodeInfo& node) { return make_legacy_broadcast(make_add(node), 0, 1); }
std::unique_ptr<OpKernel> make_sub_6(const NodeInfo& node) { return make_legacy_broadcast(make_sub(node), 0, 1); }
std::unique_ptr<OpKernel> make_mul_6(const NodeInfo& node) { return make_legacy_broadcast(make_mul(node), 0, 1); }
std::unique_ptr<OpKernel> make_div_6(const NodeInfo& node) { return make_legacy_broadcast(make_div(node), 0, 1); }
std::unique_ptr<OpKernel> make_pow_1(const NodeInfo& node) { return make_legacy_broadcast(make_pow(node), 0, 1); }
std::unique_ptr<OpKernel> make_prelu_6(const NodeInfo& node) {
  return make_legacy_broadcast(make_prelu(node), 0, 1, legacy_slope_shape);
}

// Gemm-6 differs from Gemm-7 only in `broadcast`, which allowed C to be broadcast; Gemm-7 always
// broadcasts C unidirectionally to (M, N), which serves both values.
std::unique_ptr<OpKernel> make_gemm_6(const NodeInfo& node) {
  const std::int64_t broadcast = node.get_int("broadcast", 0);
  if (broadcast != 0 && broadcast != 1) node.fail_invalid("broadcast must be 0 or 1, got " + std::to_string(broadcast));
  return make_gemm_7(node);
}

// BatchNormalization-6 is BatchNormalization-7 with `is_test`: only test mode (is_test = 1) is
// inference; training mode is refused as for the later opsets.
std::unique_ptr<OpKernel> make_batch_normalization_6(const NodeInfo& node) {
  if (node.get_int("is_test", 0) != 1) node.fail_unsupported("is_test = 0 (training mode)");
  return make_batch_normalization_7(node);
}

}  // namespace onemodel
