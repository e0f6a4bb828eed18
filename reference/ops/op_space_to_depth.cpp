// SpaceToDepth (opset 1+): [N, C, H, W] -> [N, C*b*b, H/b, W/b]; output channel (i * b + j) * C + c
// at (h, w) reads input (c, h*b+i, w*b+j) (spec/ops/shape-indexing.md section 2, SpaceToDepth).
#include "core/graph/node_math.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class SpaceToDepth final : public OpKernel {
 public:
  explicit SpaceToDepth(std::int64_t block) : block_(block) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    const Shape& in = context.input_shape(0);
    if (in.rank() != 4) node.fail_invalid("input must have rank 4");
    if (block_ < 1 || in[2] % block_ != 0 || in[3] % block_ != 0) node.fail_invalid("spatial extents do not divide by blocksize");
    // blocksize is any int64 from the file: C*b*b is a checked product (spec/operator-contract.md
    // section 6); an empty input with a huge blocksize made it wrap.
    const std::int64_t square = node_math::mul(node, block_, block_, "blocksize squared");
    context.set_output(0, context.input_type(0),
                       make_shape(node, {in[0], node_math::mul(node, in[1], square, "channels * blocksize squared"),
                                         in[2] / block_, in[3] / block_}));
  }
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const std::int64_t b = block_, C = in.shape()[1], H = in.shape()[2], W = in.shape()[3];
    const SourceElements src(in);
    const TargetElements dst(out);
    for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
      const std::int64_t n = index[0], oc = index[1], y = index[2], x = index[3];
      const std::int64_t c = oc % C, ij = oc / C, i = ij / b, j = ij % b;
      const std::int64_t from = ((n * C + c) * H + y * b + i) * W + x * b + j;
      move_element(dst, flat, src, from);
    });
  }

 private:
  std::int64_t block_;
};

}  // namespace

std::unique_ptr<OpKernel> make_space_to_depth(const NodeInfo& node) {
  return std::make_unique<SpaceToDepth>(node.required_int("blocksize"));
}

}  // namespace onemodel
