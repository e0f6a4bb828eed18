// Split: the input cut along `axis` into consecutive parts (spec/ops/shape-indexing.md section 2,
// Split). Sizes come from the `split` attribute (Split_2, opsets 1-12) or the optional input 1
// (Split_13 and Split_18). Without sizes: equal parts, the extent must divide (before 18); from
// opset 18 parts of ceil(extent / n) with the last taking the rest, n = `num_outputs` (default the
// output count).
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "core/tensor/checked_math.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Split final : public OpKernel {
 public:
  Split(std::int64_t axis, std::optional<std::vector<std::int64_t>> attribute_sizes, bool sizes_input,
        bool ceil_parts, std::int64_t num_outputs)
      : axis_(axis), attribute_sizes_(std::move(attribute_sizes)), sizes_input_(sizes_input),
        ceil_parts_(ceil_parts), num_outputs_(num_outputs) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    std::optional<std::vector<std::int64_t>> given = attribute_sizes_;
    if (sizes_input_ && context.has_input(1)) {
      const Tensor* value = value_or_defer(context, 1);
      if (value == nullptr) return;
      given = read_ints(node, *value, "split");
    }
    const Shape& in = context.input_shape(0);
    const int axis = normalize_axis(node, axis_, in.rank());
    const std::vector<std::int64_t> sizes = part_sizes(node, in[axis], given, context.output_count());
    std::vector<std::int64_t> out = extents_of(in);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      out[static_cast<std::size_t>(axis)] = sizes[i];
      context.set_output(i, context.input_type(0), make_shape(node, out));
    }
  }

  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const int axis = normalize_axis(context.node(), axis_, in.rank());
    if (in.dtype() == DType::String) return run_strings(context, in, axis);
    const std::size_t esize = dtype_size(in.dtype());
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= in.shape()[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < in.rank(); ++d) inner *= in.shape()[d];
    std::span<const std::byte> src = tensor_bytes(in);
    const std::size_t in_row = static_cast<std::size_t>(in.shape()[axis] * inner) * esize;
    std::size_t column = 0;
    for (std::size_t i = 0; i < context.output_count(); ++i) {
      // Each output's extent on the axis was stated by infer(); omitted outputs still advance.
      std::int64_t extent = 0;
      if (context.output_wanted(i)) {
        extent = context.output(i).shape()[axis];
      } else {
        extent = omitted_extent(context, i, axis);
      }
      const std::size_t block = static_cast<std::size_t>(extent * inner) * esize;
      if (context.output_wanted(i)) {
        std::span<std::byte> dst = mutable_tensor_bytes(context.output(i));
        for (std::int64_t o = 0; o < outer; ++o) {
          if (block > 0) std::memcpy(dst.data() + static_cast<std::size_t>(o) * block, src.data() + static_cast<std::size_t>(o) * in_row + column, block);
        }
      }
      column += block;
    }
  }

  // STRING elements are assigned one by one (spec/tensors.md section 8), in the same walk.
  void run_strings(RunContext& context, const Tensor& in, int axis) const {
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= in.shape()[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < in.rank(); ++d) inner *= in.shape()[d];
    const std::span<const std::string> src = in.data<std::string>();
    const std::int64_t in_row = in.shape()[axis] * inner;
    std::int64_t column = 0;
    for (std::size_t i = 0; i < context.output_count(); ++i) {
      const std::int64_t extent = context.output_wanted(i) ? context.output(i).shape()[axis] : omitted_extent(context, i, axis);
      const std::int64_t block = extent * inner;
      if (context.output_wanted(i)) {
        const std::span<std::string> dst = context.output(i).mutable_data<std::string>();
        for (std::int64_t o = 0; o < outer; ++o) {
          for (std::int64_t e = 0; e < block; ++e) {
            dst[static_cast<std::size_t>(o * block + e)] = src[static_cast<std::size_t>(o * in_row + column + e)];
          }
        }
      }
      column += block;
    }
  }

 private:
  std::vector<std::int64_t> part_sizes(const NodeInfo& node, std::int64_t extent,
                                       const std::optional<std::vector<std::int64_t>>& given,
                                       std::size_t output_count) const {
    if (given) {
      if (given->size() != output_count) node.fail_invalid("split has " + std::to_string(given->size()) + " sizes for " + std::to_string(output_count) + " outputs");
      std::int64_t total = 0;
      for (std::int64_t s : *given) {
        if (s < 0) node.fail_invalid("negative split size");
        // Sizes are any int64 from the file: the running sum is checked (spec/operator-contract.md
        // section 6); [1, INT64_MAX] overflowed it.
        const auto next = detail::checked_add(total, s);
        if (!next || *next > extent) {
          total = -1;
          break;
        }
        total = *next;
      }
      if (total != extent) node.fail_invalid("split sizes do not add up to the extent " + std::to_string(extent));
      return *given;
    }
    const std::int64_t n = ceil_parts_ ? num_outputs_ : static_cast<std::int64_t>(output_count);
    if (n <= 0) node.fail_invalid("no outputs to split into");
    if (static_cast<std::size_t>(n) != output_count) node.fail_invalid("num_outputs differs from the output count");
    std::vector<std::int64_t> sizes;
    if (!ceil_parts_) {
      if (extent % n != 0) node.fail_invalid("extent " + std::to_string(extent) + " does not divide into " + std::to_string(n) + " parts");
      sizes.assign(static_cast<std::size_t>(n), extent / n);
      return sizes;
    }
    const std::int64_t part = (extent + n - 1) / n;
    std::int64_t left = extent;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t s = i + 1 == n ? left : std::min(part, left);
      sizes.push_back(s);
      left -= s;
    }
    return sizes;
  }

  // The extent of an omitted output, recomputed from the sizes (run() reads real values).
  std::int64_t omitted_extent(const RunContext& context, std::size_t i, int axis) const {
    std::optional<std::vector<std::int64_t>> given = attribute_sizes_;
    if (sizes_input_ && context.has_input(1)) given = read_ints(context.node(), context.input(1), "split");
    return part_sizes(context.node(), context.input(0).shape()[axis], given, context.output_count())[i];
  }

  std::int64_t axis_;
  std::optional<std::vector<std::int64_t>> attribute_sizes_;
  bool sizes_input_;
  bool ceil_parts_;
  std::int64_t num_outputs_;
};

}  // namespace

std::unique_ptr<OpKernel> make_split_2(const NodeInfo& node) {
  std::optional<std::vector<std::int64_t>> sizes;
  if (node.has("split")) sizes = node.get_ints("split");
  return std::make_unique<Split>(node.get_int("axis", 0), std::move(sizes), false, false, 0);
}

std::unique_ptr<OpKernel> make_split_13(const NodeInfo& node) {
  return std::make_unique<Split>(node.get_int("axis", 0), std::nullopt, true, false, 0);
}

std::unique_ptr<OpKernel> make_split_18(const NodeInfo& node) {
  const auto outputs = static_cast<std::int64_t>(node.output_count());
  return std::make_unique<Split>(node.get_int("axis", 0), std::nullopt, true, true, node.get_int("num_outputs", outputs));
}

}  // namespace onemodel
