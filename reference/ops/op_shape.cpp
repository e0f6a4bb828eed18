// Shape: the input's extents as an int64 vector, a constant of the plan (spec/ops/shape-indexing.md
// section 2, Shape; from opset 15 `start`/`end` count from the end when negative and clamp to
// [0, rank]; start past end gives an empty vector).
#include <algorithm>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

class ShapeOp final : public OpKernel {
 public:
  ShapeOp(std::int64_t start, std::optional<std::int64_t> end) : start_(start), end_(end) {
    string_elements = true;  // reads the shape only: any element type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Shape& in = context.input_shape(0);
    const std::int64_t rank = in.rank();
    auto clamp = [rank](std::int64_t v) {
      if (v < 0) v += rank;
      return std::clamp<std::int64_t>(v, 0, rank);
    };
    const std::int64_t start = clamp(start_);
    const std::int64_t end = end_ ? clamp(*end_) : rank;
    std::vector<std::int64_t> values;
    for (std::int64_t d = start; d < end; ++d) values.push_back(in[static_cast<int>(d)]);
    context.set_constant_output(0, Tensor::from_values<std::int64_t>(
                                       DType::I64, Shape{static_cast<std::int64_t>(values.size())}, values));
  }
  void run(RunContext&) const override {}  // never run: the output is a constant

 private:
  std::int64_t start_;
  std::optional<std::int64_t> end_;
};

}  // namespace

std::unique_ptr<OpKernel> make_shape(const NodeInfo& node) {
  std::optional<std::int64_t> end;
  if (node.has("end")) end = node.get_int("end", 0);
  return std::make_unique<ShapeOp>(node.get_int("start", 0), end);
}

}  // namespace onemodel
