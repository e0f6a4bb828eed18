// DepthToSpace (opset 1+; `mode` from 11): [N, C, H, W] -> [N, C/(b*b), H*b, W*b]. DCR (default)
// reads channel (i * b + j) * C' + c for output (c, h*b+i, w*b+j); CRD reads c * b*b + i * b + j
// (spec/ops/shape-indexing.md section 2, DepthToSpace).
#include "core/graph/node_math.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class DepthToSpace final : public OpKernel {
 public:
  DepthToSpace(std::int64_t block, bool crd) : block_(block), crd_(crd) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    const Shape& in = context.input_shape(0);
    if (in.rank() != 4) node.fail_invalid("input must have rank 4");
    if (block_ < 1) node.fail_invalid("blocksize must be positive");
    // blocksize is any int64 from the file: b*b and the grown extents are checked products
    // (spec/operator-contract.md section 6), never wrapped (b = 2^32 made b*b = 0 and C % 0).
    const std::int64_t square = node_math::mul(node, block_, block_, "blocksize squared");
    if (in[1] % square != 0) node.fail_invalid("channels do not divide by blocksize squared");
    context.set_output(0, context.input_type(0),
                       make_shape(node, {in[0], in[1] / square, node_math::mul(node, in[2], block_, "height * blocksize"),
                                         node_math::mul(node, in[3], block_, "width * blocksize")}));
  }
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const std::int64_t b = block_, C = in.shape()[1], H = in.shape()[2], W = in.shape()[3];
    const std::int64_t Cout = C / (b * b);
    const SourceElements src(in);
    const TargetElements dst(out);
    for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
      const std::int64_t n = index[0], c = index[1], y = index[2], x = index[3];
      const std::int64_t i = y % b, j = x % b;
      const std::int64_t channel = crd_ ? c * b * b + i * b + j : (i * b + j) * Cout + c;
      const std::int64_t from = ((n * C + channel) * H + y / b) * W + x / b;
      move_element(dst, flat, src, from);
    });
  }

 private:
  std::int64_t block_;
  bool crd_;
};

}  // namespace

std::unique_ptr<OpKernel> make_depth_to_space(const NodeInfo& node) {
  const std::string mode = node.get_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") node.fail_invalid("mode '" + mode + "'");
  return std::make_unique<DepthToSpace>(node.required_int("blocksize"), mode == "CRD");
}

}  // namespace onemodel
