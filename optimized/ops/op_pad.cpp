// Pad from opset 11 (spec/ops/shape-indexing.md section 4), constant, edge and reflect modes, any
// rank, negative pads (crops): the reference's own geometry and checks
// (reference/ops/pad_geometry.hpp: resolve_pads, source_coordinate), applied per output row
// instead of per element. The trailing axes without pads are one unit; on the last padded axis the
// input's run is copied with one memcpy, the pad units are filled (constant) or copied one unit
// each from the coordinate the reference reads (edge, reflect); a row whose outer coordinate lands
// in a constant pad is filled whole. Bytes only: the reference's result for every element type in
// both modes. Wrap mode, a strided input and a fill value of another type (the reference's error)
// run the reference kernel; so do the attribute forms before opset 11 (not registered).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/pad_geometry.hpp"

namespace onemodel::opt {
namespace {

using shape_ops::PadMode;

constexpr std::size_t kMaxAxes = 8;                 // onemodel/shape.hpp kMaxRank
constexpr std::size_t kMaxElementBytes = 16;        // the widest stored element
constexpr std::size_t kPieceBytes = 128 * 1024;     // output bytes per piece of the parallel loop
constexpr double kNanosecondsPerByte = 0.2;

// `bytes` bytes of dst filled with the esize-byte element `value`.
void fill_elements(std::byte* dst, std::size_t bytes, const std::byte* value, std::size_t esize, bool zero) {
  if (zero) {
    std::memset(dst, 0, bytes);
    return;
  }
  for (std::size_t at = 0; at < bytes; at += esize) std::memcpy(dst + at, value, esize);
}

class PadOverride final : public OptimizedKernel {
 public:
  PadOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config), mode_(shape_ops::parse_mode(node)) {}

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor& in = context.input(0);
    const Tensor& out = context.output(0);
    const int rank = in.rank();
    // STRING elements are not bytes (spec/tensors.md section 8): the reference assigns them.
    if (in.dtype() == DType::String) return run_reference(context);
    const std::size_t esize = dtype_size(in.dtype());
    if (mode_ == PadMode::Wrap || !in.is_contiguous() || rank == 0 || static_cast<std::size_t>(rank) > kMaxAxes ||
        esize > kMaxElementBytes || out.rank() != rank) {
      return run_reference(context);
    }
    // The fill value as the reference takes it: the first element of constant_value, else zero.
    std::array<std::byte, kMaxElementBytes> fill{};
    if (context.has_input(2)) {
      const Tensor& v = context.input(2);
      if (v.dtype() != in.dtype()) return run_reference(context);  // the reference reports it
      if (v.element_count() >= 1) std::memcpy(fill.data(), tensor_bytes(v.contiguous()).data(), esize);
    }
    bool zero = true;
    for (std::size_t i = 0; i < esize; ++i) zero = zero && fill[i] == std::byte{0};
    shape_ops::IntValues pads, axes;  // in place: a warm run allocates nothing
    pads.read(node, context.input(1), "pads");
    if (context.has_input(3)) axes.read(node, context.input(3), "axes");
    const std::span<const std::int64_t> axes_view = axes.span();
    const shape_ops::PadSpec spec =
        shape_ops::resolve_pads(node, rank, pads.span(), context.has_input(3) ? &axes_view : nullptr);
    // infer() has checked the extents; a disagreement (it cannot happen) goes to the reference.
    int last = -1;  // the last axis with a pad
    for (int d = 0; d < rank; ++d) {
      const auto k = static_cast<std::size_t>(d);
      std::int64_t e = 0;
      if (__builtin_add_overflow(in.shape()[d], spec.begin[k], &e) || __builtin_add_overflow(e, spec.end[k], &e) ||
          e != out.shape()[d]) {
        return run_reference(context);
      }
      if (in.shape()[d] == 0 && e > 0 && mode_ != PadMode::Constant) return run_reference(context);
      if (spec.begin[k] != 0 || spec.end[k] != 0) last = d;
    }
    if (out.element_count() == 0) return;
    const std::byte* src = tensor_bytes(in).data();
    std::byte* dst = mutable_tensor_bytes(out).data();
    if (last < 0) {  // nothing padded
      std::memcpy(dst, src, static_cast<std::size_t>(out.element_count()) * esize);
      return;
    }
    // The unit: one element of axis `last` with the unpadded axes after it.
    std::size_t unit = esize;
    for (int d = last + 1; d < rank; ++d) unit *= static_cast<std::size_t>(in.shape()[d]);
    std::array<std::size_t, kMaxAxes> in_stride{};  // bytes per step of each axis in the input
    in_stride[static_cast<std::size_t>(last)] = unit;
    for (int d = last - 1; d >= 0; --d) {
      in_stride[static_cast<std::size_t>(d)] =
          in_stride[static_cast<std::size_t>(d) + 1] * static_cast<std::size_t>(in.shape()[d + 1]);
    }
    const auto L = static_cast<std::size_t>(last);
    const std::int64_t n_last = in.shape()[last];
    const std::int64_t out_last = out.shape()[last];
    const std::int64_t b_last = spec.begin[L];
    const std::size_t row_bytes = static_cast<std::size_t>(out_last) * unit;
    // The input's run on the output row: output units [j0, j1) read input units [j0 - b, j1 - b).
    const std::int64_t j0 = b_last > 0 ? b_last : 0;
    const std::int64_t j1 = std::min<std::int64_t>(out_last, b_last + n_last);
    std::size_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= static_cast<std::size_t>(out.shape()[d]);
    const std::size_t rows_per_piece = row_bytes >= kPieceBytes ? 1 : kPieceBytes / row_bytes;
    const std::size_t pieces = (rows + rows_per_piece - 1) / rows_per_piece;
    const PadMode mode = mode_;
    kernel_context(context).parallel_for(
        pieces, kNanosecondsPerByte * static_cast<double>(rows * row_bytes), [&](std::size_t piece) {
          const std::size_t first = piece * rows_per_piece;
          const std::size_t end = first + rows_per_piece < rows ? first + rows_per_piece : rows;
          for (std::size_t r = first; r < end; ++r) {
            std::byte* row = dst + r * row_bytes;
            // The row's input offset from its outer coordinates, or a fill.
            std::size_t rest = r;
            std::size_t from = 0;
            bool filled = false;
            for (int d = last - 1; d >= 0; --d) {
              const auto k = static_cast<std::size_t>(d);
              const auto extent = static_cast<std::size_t>(out.shape()[d]);
              const auto o = static_cast<std::int64_t>(rest % extent);
              rest /= extent;
              const std::int64_t c =
                  shape_ops::source_coordinate(mode, o - spec.begin[k], in.shape()[d], spec.begin[k], spec.end[k]);
              if (c < 0) {
                filled = true;
                break;
              }
              from += static_cast<std::size_t>(c) * in_stride[k];
            }
            if (filled) {
              fill_elements(row, row_bytes, fill.data(), esize, zero);
              continue;
            }
            const std::byte* source = src + from;
            if (j1 > j0) {
              std::memcpy(row + static_cast<std::size_t>(j0) * unit, source + static_cast<std::size_t>(j0 - b_last) * unit,
                          static_cast<std::size_t>(j1 - j0) * unit);
            }
            // The pad units before and after the run.
            if (mode == PadMode::Constant) {
              if (j1 > j0) {
                fill_elements(row, static_cast<std::size_t>(j0) * unit, fill.data(), esize, zero);
                fill_elements(row + static_cast<std::size_t>(j1) * unit, static_cast<std::size_t>(out_last - j1) * unit,
                              fill.data(), esize, zero);
              } else {
                fill_elements(row, row_bytes, fill.data(), esize, zero);
              }
              continue;
            }
            for (std::int64_t j = 0; j < out_last; ++j) {
              if (j == j0 && j1 > j0) j = j1;
              if (j >= out_last) break;
              std::byte* at = row + static_cast<std::size_t>(j) * unit;
              const std::int64_t c = shape_ops::source_coordinate(mode, j - b_last, n_last, b_last, spec.end[L]);
              if (c < 0) {
                fill_elements(at, unit, fill.data(), esize, zero);
              } else {
                std::memcpy(at, source + static_cast<std::size_t>(c) * unit, unit);
              }
            }
          }
        });
  }

 private:
  PadMode mode_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_pad(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<PadOverride>(node, config);
}

}  // namespace onemodel::opt
