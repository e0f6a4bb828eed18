// OneHot (opset 9+): output rank = indices rank + 1, the new axis at `axis` (default -1) of extent
// depth; element = values[1] where the coordinate on the new axis equals the index (negative
// indices add depth), else values[0]. Indices of any numeric type (a NaN index selects nothing;
// fractional indices truncate toward zero), depth any numeric scalar (truncated), values any stored
// type. An index outside [-depth, depth) gives an all-off row; rank-0 indices work
// (spec/ops/shape-indexing.md section 2, OneHot).
#include <cmath>
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;
using IndexTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16, ew::I8, ew::I16, ew::I32, ew::I64, ew::U8, ew::U16, ew::U32, ew::U64>;

// Every element as a double (NaN kept), for indices and depth.
std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out;
  const Tensor c = t.contiguous();
  ew::dispatch(t.dtype(), IndexTypes{}, [&](auto tag) {
    using E = decltype(tag);
    for (auto s : c.template data<typename E::storage>()) out.push_back(static_cast<double>(E::load(s)));
  });
  return out;
}

std::int64_t depth_of(const NodeInfo& node, const Tensor& t) {
  const std::vector<double> d = as_doubles(t);
  if (d.size() != 1) node.fail_invalid("depth must hold one element");
  if (!(d[0] >= 1) || d[0] > static_cast<double>(kMaxElements)) node.fail_invalid("depth must be at least 1 and within the library's limits");
  return static_cast<std::int64_t>(d[0]);
}

class OneHot final : public OpKernel {
 public:
  explicit OneHot(std::int64_t axis) : axis_(axis) {}
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    ew::require(context, 0, IndexTypes{});
    ew::require(context, 1, IndexTypes{});
    const Tensor* depth_value = value_or_defer(context, 1);
    if (depth_value == nullptr) return;
    const std::int64_t depth = depth_of(node, *depth_value);
    if (context.input_shape(2).element_count() != 2) node.fail_invalid("values must hold two elements");
    const Shape& in = context.input_shape(0);
    const int axis = normalize_axis(node, axis_, in.rank() + 1);
    std::vector<std::int64_t> out = extents_of(in);
    out.insert(out.begin() + axis, depth);
    if (out.size() > static_cast<std::size_t>(kMaxRank)) node.fail_unsupported("output rank above 8");
    context.set_output(0, context.input_type(2), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const std::vector<double> indices = as_doubles(context.input(0));
    const std::int64_t depth = depth_of(node, context.input(1));
    const Tensor values = context.input(2).contiguous();
    const Tensor& out = context.output(0);
    const int axis = normalize_axis(node, axis_, out.rank());
    const std::size_t esize = dtype_size(out.dtype());
    std::span<const std::byte> v = tensor_bytes(values);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    std::int64_t inner = 1;  // product of output extents after the new axis
    for (int d = axis + 1; d < out.rank(); ++d) inner *= out.shape()[d];
    for (std::int64_t flat = 0; flat < out.element_count(); ++flat) {
      const std::int64_t outer = flat / (depth * inner);
      const std::int64_t position = (flat / inner) % depth;
      const std::int64_t rest = flat % inner;
      const double index = indices[static_cast<std::size_t>(outer * inner + rest)];
      bool on = false;
      if (!std::isnan(index) && index >= static_cast<double>(-depth) && index < static_cast<double>(depth)) {
        std::int64_t i = static_cast<std::int64_t>(index);  // truncation toward zero
        if (i < 0) i += depth;
        on = i == position;
      }
      std::memcpy(dst.data() + static_cast<std::size_t>(flat) * esize, v.data() + (on ? esize : 0), esize);
    }
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_one_hot(const NodeInfo& node) { return std::make_unique<OneHot>(node.get_int("axis", -1)); }

}  // namespace onemodel
