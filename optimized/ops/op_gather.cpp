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

template <std::size_t W>
void copy_fixed(std::byte* dst, const std::byte* src) {
  std::memcpy(dst, src, W);
}

// Blocks [first, last) of the output (block b = o * count + j reads data row o * n + indices[j]),
// with the index type and the block copy fixed at compile time so the loop has no branches
// but the wrap of j. Indices were checked; negative ones count from the end.
template <class Index, class Copy>
void gather_blocks(const Index* indices, std::size_t count, std::int64_t n, const std::byte* src, std::byte* dst,
                   std::size_t width, std::size_t first, std::size_t last, Copy copy) {
  std::size_t o = first / count;  // walked without a division per block
  std::size_t j = first - o * count;
  const std::byte* base = src + o * static_cast<std::size_t>(n) * width;
  for (std::size_t b = first; b < last; ++b) {
    const std::int64_t i = indices[j];
    const std::size_t row = static_cast<std::size_t>(i < 0 ? i + n : i);
    copy(dst + b * width, base + row * width);
    if (++j == count) {
      j = 0;
      base += static_cast<std::size_t>(n) * width;
    }
  }
}

template <class Index>
void gather_piece(const Index* indices, std::size_t count, std::int64_t n, const std::byte* src, std::byte* dst,
                  std::size_t width, std::size_t first, std::size_t last) {
  switch (width) {
    case 1: return gather_blocks(indices, count, n, src, dst, width, first, last, [](std::byte* t, const std::byte* f) { *t = *f; });
    case 2: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_one<std::uint16_t>);
    case 4: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_one<std::uint32_t>);
    case 8: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_one<std::uint64_t>);
    // Short rows of a fixed size (T5's bias table: 8 float32 per bucket): an inlined copy.
    case 16: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_fixed<16>);
    case 32: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_fixed<32>);
    case 64: return gather_blocks(indices, count, n, src, dst, width, first, last, copy_fixed<64>);
    default:
      return gather_blocks(indices, count, n, src, dst, width, first, last,
                           [width](std::byte* t, const std::byte* f) { std::memcpy(t, f, width); });
  }
}

class GatherOverride final : public OptimizedKernel {
 public:
  GatherOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config), axis_(node.get_int("axis", 0)) {}

  void run(RunContext& context) const override {
    const Tensor& data = context.input(0);
    const Tensor& indices = context.input(1);
    const Tensor& out = context.output(0);
    // STRING data (spec/tensors.md section 8) runs the reference kernel, which assigns strings.
    if (data.dtype() == DType::String || !data.is_contiguous() || !indices.is_contiguous() || data.rank() == 0 ||
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
    kernel_context(context).parallel_for(
        pieces, kNanosecondsPerByte * static_cast<double>(blocks * block), [&](std::size_t piece) {
          const std::size_t first = piece * per_piece;
          const std::size_t last = first + per_piece < blocks ? first + per_piece : blocks;
          if (wide) {
            gather_piece(reinterpret_cast<const std::int64_t*>(raw), count, n, src, dst, block, first, last);
          } else {
            gather_piece(reinterpret_cast<const std::int32_t*>(raw), count, n, src, dst, block, first, last);
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
