// Gather: output = data[..., indices[...], ...] along `axis` (spec/ops/shape-indexing.md section 2,
// Gather). Output shape = data.shape[:axis] + indices.shape + data.shape[axis+1:]. Indices int32 or
// int64, negative counted from the end; an index outside [-n, n) is InvalidInput at run time.
#include <cstring>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Gather final : public OpKernel {
 public:
  explicit Gather(std::int64_t axis) : axis_(axis) {
    string_elements = true;  // STRING elements are assigned (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(1, {DType::I32, DType::I64});
    const Shape& data = context.input_shape(0);
    const Shape& indices = context.input_shape(1);
    const int axis = normalize_axis(node, axis_, data.rank());
    std::vector<std::int64_t> out;
    for (int d = 0; d < axis; ++d) out.push_back(data[d]);
    for (int d = 0; d < indices.rank(); ++d) out.push_back(indices[d]);
    for (int d = axis + 1; d < data.rank(); ++d) out.push_back(data[d]);
    if (out.size() > static_cast<std::size_t>(kMaxRank)) node.fail_unsupported("output rank above 8");
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor data = context.input(0).contiguous();
    const Tensor& index_tensor = context.input(1);
    if (index_tensor.dtype() != DType::I64 && index_tensor.dtype() != DType::I32) {
      node.fail_invalid("indices must be int32 or int64, not " + std::string(dtype_name(index_tensor.dtype())));
    }
    const int axis = normalize_axis(node, axis_, data.rank());
    std::int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= data.shape()[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < data.rank(); ++d) inner *= data.shape()[d];
    const std::int64_t n = data.shape()[axis];
    const std::size_t count = static_cast<std::size_t>(index_tensor.element_count());
    // The indices are read from their tensor on each pass (no copy: a warm run of the optimized
    // engine allocates nothing, graph-runtime.md section 4).
    auto each_index = [&](auto&& fn) {
      if (index_tensor.dtype() == DType::I64) {
        ew::ElementReader<std::int64_t> r(index_tensor, index_tensor.shape());
        for (std::size_t j = 0; j < count; ++j) fn(j, r.next());
      } else {
        ew::ElementReader<std::int32_t> r(index_tensor, index_tensor.shape());
        for (std::size_t j = 0; j < count; ++j) fn(j, static_cast<std::int64_t>(r.next()));
      }
    };
    // Every index is checked before anything is written.
    each_index([&](std::size_t, std::int64_t i) {
      if (i < -n || i >= n) fail_index(node, "index " + std::to_string(i) + " outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
    });
    if (data.dtype() == DType::String) {
      // The same walk in elements, assigning strings.
      const std::span<const std::string> from = data.data<std::string>();
      const std::span<std::string> to = context.output(0).mutable_data<std::string>();
      const auto width = static_cast<std::size_t>(inner);
      for (std::int64_t o = 0; o < outer; ++o) {
        each_index([&](std::size_t j, std::int64_t i) {
          const std::int64_t resolved = i < 0 ? i + n : i;
          for (std::size_t k = 0; k < width; ++k) {
            to[(static_cast<std::size_t>(o) * count + j) * width + k] = from[static_cast<std::size_t>(o * n + resolved) * width + k];
          }
        });
      }
      return;
    }
    const std::size_t block = static_cast<std::size_t>(inner) * dtype_size(data.dtype());
    if (block == 0) return;
    std::span<const std::byte> src = tensor_bytes(data);
    std::span<std::byte> dst = mutable_tensor_bytes(context.output(0));
    for (std::int64_t o = 0; o < outer; ++o) {
      each_index([&](std::size_t j, std::int64_t i) {
        const std::int64_t resolved = i < 0 ? i + n : i;
        std::memcpy(dst.data() + (static_cast<std::size_t>(o) * count + j) * block,
                    src.data() + (static_cast<std::size_t>(o * n + resolved)) * block, block);
      });
    }
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather(const NodeInfo& node) { return std::make_unique<Gather>(node.get_int("axis", 0)); }

}  // namespace onemodel
