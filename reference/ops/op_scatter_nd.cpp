// ScatterND (opset 11+; `reduction` from 16, max/min from 18): output = data, then each index
// tuple of `indices` ([..., k]) receives its slice of `updates` in index order (duplicates: the
// last write wins, or the reduction folds them in order). Reductions add/mul/max/min on float32,
// float64, int32, int64; max is `u < o ? o : u` and min `o < u ? o : u` with o the current value
// and u the update, so a NaN in either operand makes the update win (spec/ops/shape-indexing.md
// section 2, ScatterND). Indices outside their extent are InvalidInput.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

enum class Reduction { None, Add, Mul, Max, Min };

template <class T>
T reduce(Reduction r, T o, T u) {
  switch (r) {
    case Reduction::Add: return static_cast<T>(o + u);
    case Reduction::Mul: return static_cast<T>(o * u);
    case Reduction::Max: return u < o ? o : u;
    case Reduction::Min: return o < u ? o : u;
    case Reduction::None: break;
  }
  return u;
}

class ScatterND final : public OpKernel {
 public:
  explicit ScatterND(Reduction reduction) : reduction_(reduction) {
    // STRING data move without a reduction (spec/tensors.md section 8); a reduction's types are
    // checked in infer, which refuses STRING there (Unsupported: ONNX defines + * max min on numbers).
    string_elements = true;
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(1, {DType::I32, DType::I64});
    if (reduction_ != Reduction::None && context.input_type(0) == DType::String) {
      node.fail_unsupported("a reduction on String elements (only reduction 'none' moves them)");
    }
    if (reduction_ != Reduction::None) context.require_type(0, {DType::F32, DType::F64, DType::I32, DType::I64});
    const Shape& data = context.input_shape(0);
    const Shape& indices = context.input_shape(1);
    const Shape& updates = context.input_shape(2);
    if (context.input_type(2) != context.input_type(0)) node.fail_invalid("updates and data differ in type");
    if (indices.rank() < 1) node.fail_invalid("indices need rank >= 1");
    const int k = indices[indices.rank() - 1];
    if (k > data.rank()) node.fail_invalid("index tuple longer than the data's rank");
    // updates.shape = indices.shape[:-1] + data.shape[k:]
    std::vector<std::int64_t> expected;
    for (int d = 0; d + 1 < indices.rank(); ++d) expected.push_back(indices[d]);
    for (int d = k; d < data.rank(); ++d) expected.push_back(data[d]);
    if (extents_of(updates) != expected) node.fail_invalid("updates shape " + updates.to_string() + " does not match");
    context.set_output(0, context.input_type(0), data);
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor& out = context.output(0);
    copy_view_into(context.input(0), out);
    const Tensor& index_tensor = context.input(1);
    const std::vector<std::int64_t> indices = read_ints(node, index_tensor, "indices");
    const Tensor updates = context.input(2).contiguous();
    const Shape& ds = out.shape();
    const int k = index_tensor.shape()[index_tensor.rank() - 1];
    std::int64_t slice = 1;
    for (int d = k; d < ds.rank(); ++d) slice *= ds[d];
    std::int64_t tuples = 1;  // prod(indices.shape[:-1])
    for (int d = 0; d + 1 < index_tensor.rank(); ++d) tuples *= index_tensor.shape()[d];
    // Resolve every tuple first: nothing is written for an invalid index.
    std::vector<std::int64_t> offsets;
    for (std::int64_t t = 0; t < tuples; ++t) {
      std::int64_t at = 0;
      for (int j = 0; j < k; ++j) {
        const std::int64_t n = ds[j];
        std::int64_t i = indices[static_cast<std::size_t>(t * k + j)];
        if (i < -n || i >= n) fail_index(node, "index " + std::to_string(i) + " outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
        if (i < 0) i += n;
        at = at * n + i;
      }
      offsets.push_back(at * slice);
    }
    if (reduction_ == Reduction::None) {
      const SourceElements src(updates);
      const TargetElements dst(out);
      for (std::size_t t = 0; t < offsets.size(); ++t) {
        move_elements(dst, offsets[t], src, static_cast<std::int64_t>(t) * slice, slice);
      }
      return;
    }
    ew::dispatch(out.dtype(), ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      std::span<S> o = out.mutable_data<S>();
      std::span<const S> u = updates.data<S>();
      for (std::size_t t = 0; t < offsets.size(); ++t) {
        for (std::int64_t e = 0; e < slice; ++e) {
          S& target = o[static_cast<std::size_t>(offsets[t] + e)];
          target = reduce<S>(reduction_, target, u[t * static_cast<std::size_t>(slice) + static_cast<std::size_t>(e)]);
        }
      }
    });
  }

 private:
  Reduction reduction_;
};

}  // namespace

std::unique_ptr<OpKernel> make_scatter_nd(const NodeInfo& node) {
  const std::string r = node.get_string("reduction", "none");
  Reduction reduction = Reduction::None;
  if (r == "add") reduction = Reduction::Add;
  else if (r == "mul") reduction = Reduction::Mul;
  else if (r == "max") reduction = Reduction::Max;
  else if (r == "min") reduction = Reduction::Min;
  else if (r != "none") node.fail_invalid("reduction '" + r + "'");
  return std::make_unique<ScatterND>(reduction);
}

}  // namespace onemodel
