// ReduceLogSumExp: spec/ops/norms.md section 6, "Terms and finishing": m = the maximum of the
// sequence (NaN when any element is NaN; -inf when empty); an infinite m is the result as it is;
// otherwise m + log(s) with s = (((+0 + exp(x0 - m)) + exp(x1 - m)) + ...) added sequentially in
// sequence order (this sum is not the canonical one: ops-norms.md lists log-sum, not
// log-sum-exp, among the canonical sums). exp and log are the library's (exact_math). float32 only.
// Opsets: ReduceLogSumExp_1 reads the axes attribute (opsets 1-17), ReduceLogSumExp_18 the input.
#include <cmath>
#include <limits>

#include "reference/math/exact_math.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

class ReduceLogSumExp final : public reduce::ReduceKernelBase {
 public:
  using ReduceKernelBase::ReduceKernelBase;
  void run(RunContext& context) const override {
    const reduce::Plan plan = plan_for(context);
    const Tensor x = context.input(0).contiguous();
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    reduce::for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
      float m = -std::numeric_limits<float>::infinity();
      bool has_nan = false;
      reduce::for_each_term(plan, base, [&](std::int64_t i) {
        if (std::isnan(in[i])) has_nan = true;
        if (in[i] > m) m = in[i];
      });
      if (has_nan) {
        out[o] = norms::store(std::numeric_limits<float>::quiet_NaN());
        return;
      }
      if (std::isinf(m)) {
        out[o] = m;
        return;
      }
      float s = 0.0f;
      reduce::for_each_term(plan, base, [&](std::int64_t i) { s = s + exact::exp(in[i] - m); });
      out[o] = norms::store(m + exact::log(s));
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_log_sum_exp_1(const NodeInfo& node) {
  return reduce::make_kernel<ReduceLogSumExp>(node, reduce::AxesFrom::Attribute, reduce::f32_only());
}
std::unique_ptr<OpKernel> make_reduce_log_sum_exp_18(const NodeInfo& node) {
  return reduce::make_kernel<ReduceLogSumExp>(node, reduce::AxesFrom::Input, reduce::f32_only());
}

}  // namespace onemodel
