// Xor: logical exclusive or of two Bool tensors with broadcasting (spec/ops/elementwise.md section 5).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct XorFn {
  template <class V>
  bool operator()(V a, V b) const noexcept {
    return a != b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_xor(const NodeInfo&) { return ew::make_comparison<ew::BoolTypes>(XorFn{}); }

}  // namespace onemodel
