// Concat: inputs joined along `axis` (required from opset 4; default 1 before), negative axes
// counted from the end (spec/ops/shape-indexing.md section 2, Concat). Empty inputs are allowed.
// Copies one contiguous block per input per outer index.
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Concat final : public OpKernel {
 public:
  explicit Concat(std::int64_t axis) : axis_(axis) {
    string_elements = true;  // STRING elements are assigned (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    if (context.input_count() == 0 || !context.has_input(0)) node.fail_invalid("needs at least one input");
    const Shape& first = context.input_shape(0);
    const DType type = context.input_type(0);
    const int axis = normalize_axis(node, axis_, first.rank());
    std::vector<std::int64_t> out = extents_of(first);
    out[static_cast<std::size_t>(axis)] = 0;
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      const Shape& s = context.input_shape(i);
      if (context.input_type(i) != type) node.fail_invalid("inputs have different element types");
      if (s.rank() != first.rank()) node.fail_invalid("inputs have different ranks");
      for (int d = 0; d < s.rank(); ++d) {
        if (d != axis && s[d] != first[d]) node.fail_invalid("input " + std::to_string(i) + " has shape " + s.to_string() + ", first " + first.to_string());
      }
      out[static_cast<std::size_t>(axis)] += s[axis];
    }
    context.set_output(0, type, make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const int axis = normalize_axis(context.node(), axis_, out.rank());
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= out.shape()[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < out.rank(); ++d) inner *= out.shape()[d];
    if (out.dtype() == DType::String) {
      // The same blocks in elements, assigning strings.
      const std::span<std::string> to = out.mutable_data<std::string>();
      const auto out_row = static_cast<std::size_t>(out.shape()[axis] * inner);
      std::size_t column = 0;
      for (std::size_t i = 0; i < context.input_count(); ++i) {
        const Tensor in = context.input(i).contiguous();
        const std::span<const std::string> from = in.data<std::string>();
        const auto block = static_cast<std::size_t>(in.shape()[axis] * inner);
        for (std::int64_t o = 0; o < outer; ++o) {
          for (std::size_t k = 0; k < block; ++k) to[static_cast<std::size_t>(o) * out_row + column + k] = from[static_cast<std::size_t>(o) * block + k];
        }
        column += block;
      }
      return;
    }
    const std::size_t esize = dtype_size(out.dtype());
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    const std::size_t out_row = static_cast<std::size_t>(out.shape()[axis] * inner) * esize;
    std::size_t column = 0;  // byte position of this input's block inside an output row
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      const Tensor in = context.input(i).contiguous();
      std::span<const std::byte> src = tensor_bytes(in);
      const std::size_t block = static_cast<std::size_t>(in.shape()[axis] * inner) * esize;
      for (std::int64_t o = 0; o < outer; ++o) {
        if (block > 0) std::memcpy(dst.data() + static_cast<std::size_t>(o) * out_row + column, src.data() + static_cast<std::size_t>(o) * block, block);
      }
      column += block;
    }
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_concat(const NodeInfo& node) {
  if (node.opset() < 4) return std::make_unique<Concat>(node.get_int("axis", 1));
  if (!node.has("axis")) node.fail_invalid("attribute 'axis' is required");
  return std::make_unique<Concat>(node.get_int("axis", 0));
}

}  // namespace onemodel
