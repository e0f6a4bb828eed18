// Pow: base ^ exponent, NumPy broadcasting (spec/ops/elementwise.md section 3, Pow). Not exact:
// the platform pow is not bit-reproducible. A float base uses binary32 pow with the exponent
// converted to float, a double base double pow, an integer base double pow converted back
// saturating. An exponent of 2 is x * x. Base types f32, f64, i32, i64; exponent those, u32, u64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"
#include "reference/ops/float_to_integer.hpp"

namespace onemodel {
namespace {

using BaseTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>;
using ExponentTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64, ew::U32, ew::U64>;

template <class B, class X>
typename B::value pow_one(typename B::value base, typename X::value exponent) {
  using V = typename B::value;
  if constexpr (std::is_same_v<V, float>) {
    const float e = static_cast<float>(exponent);
    if (e == 2.0f) return base * base;
    return std::pow(base, e);
  } else {
    const double e = static_cast<double>(exponent);
    const double b = static_cast<double>(base);
    const double r = e == 2.0 ? b * b : std::pow(b, e);
    if constexpr (std::is_same_v<V, double>) return r;
    else return ew::saturate_to_integer<V>(r);
  }
}

class PowKernel final : public OpKernel {
 public:
  PowKernel() { supports_exact = false; }
  void infer(InferContext& context) const override {
    ew::require(context, 0, BaseTypes{});
    ew::require(context, 1, ExponentTypes{});
    context.set_output(0, context.input_type(0), ew::broadcast_inputs(context, {0, 1}));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    ew::dispatch(context.input(0).dtype(), BaseTypes{}, [&](auto base_tag) {
      using B = decltype(base_tag);
      ew::dispatch(context.input(1).dtype(), ExponentTypes{}, [&](auto exponent_tag) {
        using X = decltype(exponent_tag);
        const auto a = ew::read_broadcast<typename B::storage>(context.input(0), out.shape());
        const auto b = ew::read_broadcast<typename X::storage>(context.input(1), out.shape());
        auto o = out.mutable_data<typename B::storage>();
        for (std::size_t i = 0; i < a.size(); ++i) o[i] = B::store(pow_one<B, X>(B::load(a[i]), X::load(b[i])));
      });
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_pow(const NodeInfo&) { return std::make_unique<PowKernel>(); }

}  // namespace onemodel
