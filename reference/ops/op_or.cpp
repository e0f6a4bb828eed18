// Or: logical or of two Bool tensors with broadcasting (spec/ops/elementwise.md section 5).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct OrFn {
  template <class V>
  bool operator()(V a, V b) const noexcept {
    return a || b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_or(const NodeInfo&) { return ew::make_comparison<ew::BoolTypes>(OrFn{}); }

}  // namespace onemodel
