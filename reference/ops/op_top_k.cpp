// TopK (spec/ops/shape-indexing.md section 5): the k largest (`largest` = 1, default) or smallest
// elements along `axis` (default -1), values and int64 indices, always sorted (`sorted` is
// accepted and ignored). k is an attribute before opset 10 (TopK_1) and an input from 10
// (TopK_10). Ties keep input order (the lower index first, in both directions); NaN counts as
// greater than every number (first when largest, last when not). The stable order is computed
// with a stable sort of the row's indices. k outside [0, extent] is InvalidModel.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;
using TopKTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16, ew::I8, ew::I16, ew::I32, ew::I64, ew::U8, ew::U16, ew::U32, ew::U64>;

template <class V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  else return false;
}

// a comes strictly before b in descending order with NaN above every number.
template <class V>
bool greater(V a, V b) {
  if (is_nan(a)) return !is_nan(b);
  if (is_nan(b)) return false;
  return a > b;
}

class TopK final : public OpKernel {
 public:
  TopK(std::optional<std::int64_t> attribute_k, std::int64_t axis, bool largest)
      : attribute_k_(attribute_k), axis_(axis), largest_(largest) {}

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    ew::require(context, 0, TopKTypes{});
    // The axis attribute first: a bad axis is the model's fault whatever k is (spec/errors.md 3.2).
    const Shape& in = context.input_shape(0);
    const int axis = normalize_axis(node, axis_, in.rank());
    std::int64_t k = 0;
    if (attribute_k_) {
      k = *attribute_k_;
    } else {
      const Tensor* kv = value_or_defer(context, 1);
      if (kv == nullptr) return;
      k = k_of(node, *kv);
    }
    if (k < 0 || k > in[axis]) node.fail_invalid("k " + std::to_string(k) + " outside [0, " + std::to_string(in[axis]) + "]");
    std::vector<std::int64_t> out = extents_of(in);
    out[static_cast<std::size_t>(axis)] = k;
    const Shape shape = make_shape(node, out);
    context.set_output(0, context.input_type(0), shape);
    context.set_output(1, DType::I64, shape);
  }

  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const int axis = normalize_axis(context.node(), axis_, in.rank());
    const Shape& out_shape = context.output_wanted(0) ? context.output(0).shape() : context.output(1).shape();
    const std::int64_t k = out_shape[axis];
    const std::int64_t n = in.shape()[axis];
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= in.shape()[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < in.rank(); ++d) inner *= in.shape()[d];
    ew::dispatch(in.dtype(), TopKTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      std::span<const S> x = in.template data<S>();
      std::span<S> values;
      std::span<std::int64_t> indices;
      if (context.output_wanted(0)) values = context.output(0).template mutable_data<S>();
      if (context.output_wanted(1)) indices = context.output(1).template mutable_data<std::int64_t>();
      std::vector<std::int64_t> order(static_cast<std::size_t>(n));
      for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t r = 0; r < inner; ++r) {
          auto at = [&](std::int64_t i) { return E::load(x[static_cast<std::size_t>((o * n + i) * inner + r)]); };
          std::iota(order.begin(), order.end(), std::int64_t{0});
          // Stable: equal values keep the lower index first.
          std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return largest_ ? greater(at(a), at(b)) : greater(at(b), at(a));
          });
          for (std::int64_t j = 0; j < k; ++j) {
            const std::size_t dst = static_cast<std::size_t>((o * k + j) * inner + r);
            const std::int64_t src = order[static_cast<std::size_t>(j)];
            if (!values.empty()) values[dst] = x[static_cast<std::size_t>((o * n + src) * inner + r)];
            if (!indices.empty()) indices[dst] = src;
          }
        }
      }
    });
  }

 private:
  static std::int64_t k_of(const NodeInfo& node, const Tensor& t) {
    const std::vector<std::int64_t> v = read_ints(node, t, "K");
    if (v.size() != 1) node.fail_invalid("K must hold one element");
    return v[0];
  }
  std::optional<std::int64_t> attribute_k_;
  std::int64_t axis_;
  bool largest_;
};

}  // namespace

std::unique_ptr<OpKernel> make_top_k_1(const NodeInfo& node) {
  return std::make_unique<TopK>(node.required_int("k"), node.get_int("axis", -1), true);
}

std::unique_ptr<OpKernel> make_top_k_10(const NodeInfo& node) {
  return std::make_unique<TopK>(std::nullopt, node.get_int("axis", -1), node.get_int("largest", 1) != 0);
}

}  // namespace onemodel
