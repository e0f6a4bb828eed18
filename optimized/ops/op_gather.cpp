// Gather (spec/ops/shape-indexing.md section 2, Gather): output = data[..., indices[...], ...]
// along `axis`, each selected block (the extent after the axis) copied with memcpy, or as one
// typed element when the block is one element of 1, 2, 4 or 8 bytes. Every index is checked
// before anything is written, as the reference does; an index outside [-n, n) hands the node to
// the reference kernel, which reports it (InvalidInput, its message). Negative indices count from
// the end. No per-run allocation: indices are read in place (int32 or int64) and resolved again
// while copying. Strided views and ranks past the shape limit run the reference.
#include <cstring>
#include <memory>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kPieceBytes = 128 * 1024;
constexpr double kNanosecondsPerByte = 0.2;

template <class T>
void copy_one(std::byte* dst, const std::byte* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  std::memcpy(dst, &v, sizeof(T));
}

class GatherOverride final : public OptimizedKernel {
 public:
  GatherOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config), axis_(node.get_int("axis", 0)) {}

  void run(RunContext& context) const override {
    const Tensor& data = context.input(0);
    const Tensor& indices = context.input(1);
    const Tensor& out = context.output(0);
    if (!data.is_contiguous() || !indices.is_contiguous() || data.rank() == 0 ||
        (indices.dtype() != DType::I32 && indices.dtype() != DType::I64)) {
      return run_reference(context);
    }
    const int axis = shape_ops::normalize_axis(context.node(), axis_, data.rank());
    const std::int64_t n = data.shape()[axis];
    const auto count = static_cast<std::size_t>(indices.element_count());
    const bool wide = indices.dtype() == DType::I64;
    const std::byte* raw = tensor_bytes(indices).data();
    auto index_at = [raw, wide](std::size_t j) -> std::int64_t {
      if (wide) {
        std::int64_t v;
        std::memcpy(&v, raw + j * 8, 8);
        return v;
      }
      std::int32_t v;
      std::memcpy(&v, raw + j * 4, 4);
      return v;
    };
    for (std::size_t j = 0; j < count; ++j) {
      const std::int64_t i = index_at(j);
      if (i < -n || i >= n) return run_reference(context);  // the reference's error
    }
    if (out.element_count() == 0) return;
    const std::size_t esize = dtype_size(data.dtype());
    std::size_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(data.shape()[d]);
    std::size_t inner = 1;
    for (int d = axis + 1; d < data.rank(); ++d) inner *= static_cast<std::size_t>(data.shape()[d]);
    const std::size_t block = inner * esize;
    if (static_cast<std::size_t>(out.element_count()) != outer * count * inner) return run_reference(context);
    const std::byte* src = tensor_bytes(data).data();
    std::byte* dst = mutable_tensor_bytes(out).data();
    const std::size_t blocks = outer * count;
    const std::size_t per_piece = block >= kPieceBytes ? 1 : kPieceBytes / block;
    const std::size_t pieces = (blocks + per_piece - 1) / per_piece;
    const auto un = static_cast<std::size_t>(n);
    kernel_context(context).parallel_for(
        pieces, kNanosecondsPerByte * static_cast<double>(blocks * block), [&](std::size_t piece) {
          const std::size_t first = piece * per_piece;
          const std::size_t last = first + per_piece < blocks ? first + per_piece : blocks;
          const std::size_t width = block;  // locals: the byte stores below could alias captures
          std::byte* const out_bytes = dst;
          const std::byte* const in_bytes = src;
          for (std::size_t b = first; b < last; ++b) {
            const std::size_t o = b / count;
            const std::int64_t i = index_at(b - o * count);
            const std::size_t row = static_cast<std::size_t>(i < 0 ? i + n : i);
            const std::byte* from = in_bytes + (o * un + row) * width;
            std::byte* to = out_bytes + b * width;
            switch (width) {
              case 4: copy_one<std::uint32_t>(to, from); break;
              case 8: copy_one<std::uint64_t>(to, from); break;
              case 2: copy_one<std::uint16_t>(to, from); break;
              case 1: *to = *from; break;
              default: std::memcpy(to, from, width);
            }
          }
        });
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_gather(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<GatherOverride>(node, config);
}

}  // namespace onemodel::opt
