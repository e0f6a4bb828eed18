// Not: logical negation of a Bool tensor (spec/ops/elementwise.md section 5).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct NotFn {
  bool operator()(bool x) const noexcept { return !x; }
};

}  // namespace

std::unique_ptr<OpKernel> make_not(const NodeInfo&) { return ew::make_unary<ew::BoolTypes>(NotFn{}); }

}  // namespace onemodel
