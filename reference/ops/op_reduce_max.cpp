// ReduceMax: spec/ops/norms.md section 6, "Maximum and minimum and NaN": a sequential scan, the
// first element replaced only by a strictly greater one (NaN wins only when first); empty gives
// -inf (integers: the lowest value). bool (from opset 20, as ONNX
// defines it) is any element true, empty false.
// Opsets: ReduceMax_1 reads the axes attribute (opsets 1-17), ReduceMax_18 the axes input (18-19),
// ReduceMax_20 the same with bool.
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_reduce_max_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<true>>(node, reduce::AxesFrom::Attribute, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_max_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<true>>(node, reduce::AxesFrom::Input, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_max_20(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ExtremeKernel<true>>(node, reduce::AxesFrom::Input,
                                                            reduce::all_types_and_bool());
}

}  // namespace onemodel
