// Tile (opset 6+): output extent d = input extent d * repeats[d]; element i reads input element
// i mod extent on every axis; a repeat of 0 gives an empty axis (spec/ops/shape-indexing.md
// section 2, Tile).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Tile final : public OpKernel {
 public:
  Tile() {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const Tensor* repeats_value = value_or_defer(context, 1);
    if (repeats_value == nullptr) return;
    const NodeInfo& node = context.node();
    const Shape& in = context.input_shape(0);
    const std::vector<std::int64_t> repeats = read_ints(node, *repeats_value, "repeats");
    if (repeats.size() != static_cast<std::size_t>(in.rank())) node.fail_invalid("repeats must have one entry per axis");
    std::vector<std::int64_t> out;
    for (int d = 0; d < in.rank(); ++d) {
      const std::int64_t r = repeats[static_cast<std::size_t>(d)];
      if (r < 0) node.fail_invalid("negative repeat");
      if (r > kMaxElements) node.fail_unsupported("repeat beyond the library's limits");
      out.push_back(in[d] * r);  // both below 2^31: fits 64 bits
    }
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const std::vector<std::int64_t> strides = row_major_strides(in.shape());
    const SourceElements src(in);
    const TargetElements dst(out);
    for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
      std::int64_t from = 0;
      for (int d = 0; d < in.rank(); ++d) from += (index[static_cast<std::size_t>(d)] % in.shape()[d]) * strides[static_cast<std::size_t>(d)];
      move_element(dst, flat, src, from);
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_tile(const NodeInfo&) { return std::make_unique<Tile>(); }

}  // namespace onemodel
