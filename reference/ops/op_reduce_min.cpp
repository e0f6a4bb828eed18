// ReduceMin: spec/ops/norms.md section 6, "Maximum and minimum and NaN": a sequential scan, the
// first element replaced only by a strictly smaller one (NaN wins only when first); empty gives
// +inf (integers: the highest value). bool (from opset 20, as ONNX
// defines it) is every element true, empty true.
// Opsets: ReduceMin_1 reads the axes attribute (opsets 1-17), ReduceMin_18 the axes input (18-19),
// ReduceMin_20 the same with bool.
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_reduce_min_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<false>>(node, reduce::AxesFrom::Attribute, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_min_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<false>>(node, reduce::AxesFrom::Input, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_min_20(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<false>>(node, reduce::AxesFrom::Input,
                                                            reduce::all_types_and_bool());
}

}  // namespace onemodel
