// ArgMin (opsets 1+, select_last_index from 12): spec/ops/norms.md section 7. The index of the
// first minimum along the axis (the last with select_last_index); NaN wins only when first.
#include "reference/ops/arg_extreme.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_arg_min(const NodeInfo& node) { return norms::make_arg_extreme<false>(node); }

}  // namespace onemodel
