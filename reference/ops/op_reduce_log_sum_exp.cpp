// ReduceLogSumExp: spec/ops/norms.md section 6, "Terms and finishing": m = the maximum of the
// sequence (NaN when any element is NaN; -inf when empty); an infinite m is the result as it is;
// otherwise m + log(s) with s = (((+0 + exp(x0 - m)) + exp(x1 - m)) + ...) added sequentially in
// sequence order (this sum is not the canonical one: ops-norms.md lists log-sum, not
// log-sum-exp, among the canonical sums). float32: exp and log are the library's (exact_math).
// float64: the same steps with the exact binary64 exp and log (spec/exact-transcendentals.md
// section 15), exact in both modes. The source refuses float64 log reductions in exact mode
// (ops-coverage.md "Exactness") for want of such functions; issue 17 asks us to go past it.
// Opsets: ReduceLogSumExp_1 reads the axes attribute (opsets 1-17), ReduceLogSumExp_18 the input.
#include <cmath>
#include <limits>

#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

float lse_exp(float x) noexcept { return exact::exp(x); }
float lse_log(float x) noexcept { return exact::log(x); }
double lse_exp(double x) noexcept { return exact::exp_f64(x); }
double lse_log(double x) noexcept { return exact::log_f64(x); }

class ReduceLogSumExp final : public reduce::ReduceKernelBase {
 public:
  using ReduceKernelBase::ReduceKernelBase;
  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    if (x.dtype() == DType::F64) return run_typed<double>(context, x);
    run_typed<float>(context, x);
  }

 private:
  template <class T>
  void run_typed(const RunContext& context, const Tensor& x) const {
    const reduce::Plan plan = plan_for(context);
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    reduce::for_each_output(plan, [&](std::int64_t o, std::int64_t base) {
      T m = -std::numeric_limits<T>::infinity();
      bool has_nan = false;
      reduce::for_each_term(plan, base, [&](std::int64_t i) {
        if (std::isnan(in[i])) has_nan = true;
        if (in[i] > m) m = in[i];
      });
      if (has_nan) {
        out[o] = norms::store(std::numeric_limits<T>::quiet_NaN());
        return;
      }
      if (std::isinf(m)) {
        out[o] = m;
        return;
      }
      T s = T{0};
      reduce::for_each_term(plan, base, [&](std::int64_t i) { s = s + lse_exp(in[i] - m); });
      out[o] = norms::store(m + lse_log(s));
    });
  }
};

std::unique_ptr<OpKernel> make_log_sum_exp_kernel(const NodeInfo& node, reduce::AxesFrom from) {
  return reduce::make_kernel<ReduceLogSumExp>(node, from, reduce::float_types());
}

}  // namespace

std::unique_ptr<OpKernel> make_reduce_log_sum_exp_1(const NodeInfo& node) {
  return make_log_sum_exp_kernel(node, reduce::AxesFrom::Attribute);
}
std::unique_ptr<OpKernel> make_reduce_log_sum_exp_18(const NodeInfo& node) {
  return make_log_sum_exp_kernel(node, reduce::AxesFrom::Input);
}

}  // namespace onemodel
