// Pow: base ^ exponent, NumPy broadcasting (spec/ops/elementwise.md section 3, Pow). Exact in both
// modes: every element goes through exact::pow (spec/exact-transcendentals.md section 10) with the
// exponent converted to double, so the result does not depend on the platform's pow. An integer
// base takes the value of section 10.5 through Cast's float-to-integer rule. Base types f32, f64,
// i32, i64; exponent those, u32, u64.
#include <cstdint>
#include <type_traits>

#include "reference/math/exact_pow.hpp"
#include "reference/ops/elementwise_kernels.hpp"
#include "reference/ops/float_to_integer.hpp"

namespace onemodel {
namespace {

using BaseTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>;
using ExponentTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64, ew::U32, ew::U64>;

template <class B, class X>
typename B::value pow_one(typename B::value base, typename X::value exponent) {
  using V = typename B::value;
  // spec/exact-transcendentals.md section 10.1: the exponent is taken as a double (exact for
  // f32, f64, i32 and u32; i64 and u64 rounded to nearest).
  const double y = static_cast<double>(exponent);
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
    return exact::pow(base, y);
  } else {
    return ew::saturate_to_integer<V>(exact::pow_integer_base(static_cast<std::int64_t>(base), y));
  }
}

class PowKernel final : public OpKernel {
 public:
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
        ew::ElementReader<typename B::storage> a(context.input(0), out.shape());
        ew::ElementReader<typename X::storage> b(context.input(1), out.shape());
        auto o = out.mutable_data<typename B::storage>();
        // B::store writes every NaN as the canonical quiet NaN (spec/ops/elementwise.md section 3).
        for (std::size_t i = 0; i < o.size(); ++i) {
          const auto x = a.next();
          o[i] = B::store(pow_one<B, X>(B::load(x), X::load(b.next())));
        }
      });
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_pow(const NodeInfo&) { return std::make_unique<PowKernel>(); }

}  // namespace onemodel
