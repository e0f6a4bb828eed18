// ArgMax (opsets 1+, select_last_index from 12): spec/ops/norms.md section 7. The index of the
// first maximum along the axis (the last with select_last_index); NaN wins only when first.
#include "reference/ops/arg_extreme.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_arg_max(const NodeInfo& node) { return norms::make_arg_extreme<true>(node); }

}  // namespace onemodel
