// ScatterElements (opset 11+; `reduction` from 16, max/min from 18): output = data, then for every
// position p of `indices` (int32/int64, same shape as updates, same rank as data), the element at p
// with the axis coordinate replaced by indices[p] receives updates[p], in row-major order of p
// (last write wins, or the reduction folds in order with the rules of ScatterND). Negative indices
// add the extent; outside [-n, n) is InvalidInput (spec/ops/shape-indexing.md section 2,
// ScatterElements).
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

class ScatterElements final : public OpKernel {
 public:
  ScatterElements(std::int64_t axis, Reduction reduction) : axis_(axis), reduction_(reduction) {
    // STRING data move without a reduction (spec/tensors.md section 8); a reduction's types are
    // checked in infer, which refuses STRING there (Unsupported, as ONNX Runtime 1.31.1 does).
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
    normalize_axis(node, axis_, data.rank());
    if (!(context.input_shape(1) == context.input_shape(2))) node.fail_invalid("indices and updates differ in shape");
    if (context.input_shape(1).rank() != data.rank()) node.fail_invalid("indices and data differ in rank");
    if (context.input_type(2) != context.input_type(0)) node.fail_invalid("updates and data differ in type");
    context.set_output(0, context.input_type(0), data);
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor& out = context.output(0);
    copy_view_into(context.input(0), out);
    const Tensor& index_tensor = context.input(1);
    const std::vector<std::int64_t> indices = read_ints(node, index_tensor, "indices");
    const Tensor updates = context.input(2).contiguous();
    const int axis = normalize_axis(node, axis_, out.rank());
    const std::int64_t n = out.shape()[axis];
    const std::vector<std::int64_t> strides = row_major_strides(out.shape());
    std::vector<std::int64_t> targets(indices.size());
    bool bad = false;
    for_each_index(index_tensor.shape(), [&](const auto& index, std::int64_t flat) {
      std::int64_t k = indices[static_cast<std::size_t>(flat)];
      // An index outside [-n, n) is refused below; its offset is never formed, since k * stride
      // overflows for k near INT64_MAX (found by the operator fuzzer, issue 10).
      if (k < -n || k >= n) {
        bad = true;
        return;
      }
      if (k < 0) k += n;
      std::int64_t at = 0;
      for (int d = 0; d < out.rank(); ++d) {
        const std::int64_t c = d == axis ? k : index[static_cast<std::size_t>(d)];
        if (d != axis && c >= out.shape()[d]) {
          bad = true;
          return;
        }
        at += c * strides[static_cast<std::size_t>(d)];
      }
      targets[static_cast<std::size_t>(flat)] = at;
    });
    if (bad) fail_index(node, "an index is outside its extent");
    if (reduction_ == Reduction::None) {
      const SourceElements src(updates);
      const TargetElements dst(out);
      for (std::size_t i = 0; i < targets.size(); ++i) move_element(dst, targets[i], src, static_cast<std::int64_t>(i));
      return;
    }
    ew::dispatch(out.dtype(), ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>{}, [&](auto tag) {
      using S = typename decltype(tag)::storage;
      std::span<S> o = out.mutable_data<S>();
      std::span<const S> u = updates.data<S>();
      for (std::size_t i = 0; i < targets.size(); ++i) {
        S& t = o[static_cast<std::size_t>(targets[i])];
        t = reduce<S>(reduction_, t, u[i]);
      }
    });
  }

 private:
  std::int64_t axis_;
  Reduction reduction_;
};

}  // namespace

std::unique_ptr<OpKernel> make_scatter_elements(const NodeInfo& node) {
  const std::string r = node.get_string("reduction", "none");
  Reduction reduction = Reduction::None;
  if (r == "add") reduction = Reduction::Add;
  else if (r == "mul") reduction = Reduction::Mul;
  else if (r == "max") reduction = Reduction::Max;
  else if (r == "min") reduction = Reduction::Min;
  else if (r != "none") node.fail_invalid("reduction '" + r + "'");
  return std::make_unique<ScatterElements>(node.get_int("axis", 0), reduction);
}

}  // namespace onemodel
