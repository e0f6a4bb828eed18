// GatherElements (opset 11+): output has the indices' shape; output[i] = data[i with the axis
// coordinate replaced by indices[i]] (spec/ops/shape-indexing.md section 2, GatherElements).
// Indices int32 or int64, negative counted from the end, outside [-n, n) InvalidInput; the indices'
// extents may be smaller than the data's off the axis (never larger).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class GatherElements final : public OpKernel {
 public:
  explicit GatherElements(std::int64_t axis) : axis_(axis) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(1, {DType::I32, DType::I64});
    const Shape& data = context.input_shape(0);
    const Shape& indices = context.input_shape(1);
    const int axis = normalize_axis(node, axis_, data.rank());
    if (indices.rank() != data.rank()) node.fail_invalid("indices and data differ in rank");
    for (int d = 0; d < data.rank(); ++d) {
      if (d != axis && indices[d] > data[d]) node.fail_invalid("indices extent exceeds the data's off the axis");
    }
    context.set_output(0, context.input_type(0), indices);
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor data = context.input(0).contiguous();
    const Tensor& index_tensor = context.input(1);
    const std::vector<std::int64_t> indices = read_ints(node, index_tensor, "indices");
    const int axis = normalize_axis(node, axis_, data.rank());
    const std::int64_t n = data.shape()[axis];
    const std::vector<std::int64_t> strides = row_major_strides(data.shape());
    const SourceElements src(data);
    const TargetElements dst(context.output(0));
    for (std::int64_t i : indices) {
      if (i < -n || i >= n) fail_index(node, "index " + std::to_string(i) + " outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
    }
    for_each_index(index_tensor.shape(), [&](const auto& index, std::int64_t flat) {
      std::int64_t k = indices[static_cast<std::size_t>(flat)];
      if (k < 0) k += n;
      std::int64_t from = 0;
      for (int d = 0; d < data.rank(); ++d) {
        from += (d == axis ? k : index[static_cast<std::size_t>(d)]) * strides[static_cast<std::size_t>(d)];
      }
      move_element(dst, flat, src, from);
    });
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather_elements(const NodeInfo& node) {
  return std::make_unique<GatherElements>(node.get_int("axis", 0));
}

}  // namespace onemodel
