// Clip (spec/ops/elementwise.md section 6): v = x; if v < lo then v = lo; if v > hi then v = hi.
// The upper bound wins when lo > hi; NaN in x passes through; a NaN bound compares false and so
// has no effect; an omitted bound is the type's finite extreme (Clip(+inf) with no bounds is the
// largest finite value). Clip_6 (opsets 6 to 10) takes the bounds from the float attributes min
// and max; Clip_11 (opset 11 on) from the optional scalar inputs 1 and 2.
#include <optional>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

template <class V>
V clip_one(V x, V lo, V hi) noexcept {
  V v = x;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

// Element type E's bound from input `index` when given, else `fallback`.
template <class E>
typename E::value bound_input(const RunContext& context, std::size_t index, typename E::value fallback) {
  if (!context.has_input(index)) return fallback;
  const Tensor& bound = context.input(index);
  if (bound.element_count() != 1) context.node().fail_invalid("the bounds of Clip must be scalars");
  return E::load(bound.to_vector<typename E::storage>()[0]);
}

class Clip11 final : public OpKernel {
 public:
  Clip11() { in_place_input = 0; }
  void infer(InferContext& context) const override {
    ew::require(context, 0, ew::NumericTypes{});
    for (std::size_t i = 1; i < 3; ++i) {
      if (context.has_input(i)) ew::require_same_type(context, 0, i);
    }
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    ew::dispatch(context.input(0).dtype(), ew::NumericTypes{}, [&](auto tag) {
      using E = decltype(tag);
      const auto lo = bound_input<E>(context, 1, ew::finite_lowest<E>());
      const auto hi = bound_input<E>(context, 2, ew::finite_highest<E>());
      const auto in = context.input(0).to_vector<typename E::storage>();
      auto o = out.mutable_data<typename E::storage>();
      for (std::size_t i = 0; i < in.size(); ++i) o[i] = E::store(clip_one(E::load(in[i]), lo, hi));
    });
  }
};

class Clip6 final : public OpKernel {
 public:
  Clip6(std::optional<float> lo, std::optional<float> hi) : lo_(lo), hi_(hi) { in_place_input = 0; }
  void infer(InferContext& context) const override {
    ew::require(context, 0, ew::FloatTypes{});
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    ew::dispatch(context.input(0).dtype(), ew::FloatTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      const V lo = lo_ ? static_cast<V>(*lo_) : ew::finite_lowest<E>();
      const V hi = hi_ ? static_cast<V>(*hi_) : ew::finite_highest<E>();
      const auto in = context.input(0).to_vector<typename E::storage>();
      auto o = out.mutable_data<typename E::storage>();
      for (std::size_t i = 0; i < in.size(); ++i) o[i] = E::store(clip_one(E::load(in[i]), lo, hi));
    });
  }

 private:
  std::optional<float> lo_;
  std::optional<float> hi_;
};

}  // namespace

std::unique_ptr<OpKernel> make_clip_6(const NodeInfo& node) {
  std::optional<float> lo, hi;
  if (node.has("min")) lo = node.get_float("min", 0.0f);
  if (node.has("max")) hi = node.get_float("max", 0.0f);
  return std::make_unique<Clip6>(lo, hi);
}

std::unique_ptr<OpKernel> make_clip_11(const NodeInfo&) { return std::make_unique<Clip11>(); }

}  // namespace onemodel
