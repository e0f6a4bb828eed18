// Driver of the strided view copy (optimized/kernels/datamove/view_copy.hpp). The rows (all axes
// but the merged inner one) are cut into pieces of about kPieceBytes of output, a function of the
// shape only; each piece walks its rows with an odometer started from its first row's index.
#include "optimized/kernels/datamove/view_copy.hpp"

#include <array>
#include <cstring>

namespace onemodel::opt::datamove {
namespace {

constexpr std::size_t kPieceBytes = 128 * 1024;
constexpr double kNanosecondsPerByte = 0.2;

template <class T>
void strided_row(std::byte* out, const std::byte* in, std::int64_t count, std::int64_t stride) {
  // Elements move as bytes of their width (T is only a carrier of that width).
  for (std::int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, in + i * stride * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    std::memcpy(out + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
  }
}

void copy_row(std::byte* out, const std::byte* in, std::int64_t count, std::int64_t stride, std::size_t esize) {
  if (stride == 1) {
    std::memcpy(out, in, static_cast<std::size_t>(count) * esize);
    return;
  }
  switch (esize) {
    case 1: return strided_row<std::uint8_t>(out, in, count, stride);
    case 2: return strided_row<std::uint16_t>(out, in, count, stride);
    case 4: return strided_row<std::uint32_t>(out, in, count, stride);
    case 8: return strided_row<std::uint64_t>(out, in, count, stride);
    default:
      for (std::int64_t i = 0; i < count; ++i) {
        std::memcpy(out + static_cast<std::size_t>(i) * esize, in + i * stride * static_cast<std::int64_t>(esize), esize);
      }
  }
}

}  // namespace

bool copy_view(const KernelContext& context, std::size_t esize, const std::byte* origin,
               std::span<const std::int64_t> extents, std::span<const std::int64_t> strides, std::byte* dst) {
  // The shape reduced: extent-1 axes dropped, an axis merged into its right neighbour when the
  // two walk one arithmetic run (stride[d] == stride[d+1] * extent[d+1]).
  std::array<std::int64_t, kMaxAxes> n{};
  std::array<std::int64_t, kMaxAxes> s{};
  if (extents.size() > static_cast<std::size_t>(kMaxAxes) || strides.size() != extents.size()) return false;
  int rank = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 0) return true;
    if (extents[d] == 1) continue;
    n[static_cast<std::size_t>(rank)] = extents[d];
    s[static_cast<std::size_t>(rank)] = strides[d];
    ++rank;
  }
  int merged = 0;
  for (int d = 0; d < rank; ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (merged > 0) {
      const auto last = static_cast<std::size_t>(merged - 1);
      if (s[last] == s[k] * n[k]) {
        n[last] *= n[k];
        s[last] = s[k];
        continue;
      }
    }
    n[static_cast<std::size_t>(merged)] = n[k];
    s[static_cast<std::size_t>(merged)] = s[k];
    ++merged;
  }
  rank = merged;
  if (rank == 0) {  // one element
    std::memcpy(dst, origin, esize);
    return true;
  }
  if (rank == 1 && s[0] == 1) {  // one run (a slice of whole rows): one memcpy, cut into pieces
    const std::size_t total = static_cast<std::size_t>(n[0]) * esize;
    const std::size_t pieces = (total + kPieceBytes - 1) / kPieceBytes;
    context.parallel_for(pieces, kNanosecondsPerByte * static_cast<double>(total), [&](std::size_t piece) {
      const std::size_t lo = piece * kPieceBytes;
      std::memcpy(dst + lo, origin + lo, total - lo < kPieceBytes ? total - lo : kPieceBytes);
    });
    return true;
  }
  const std::int64_t inner = n[static_cast<std::size_t>(rank - 1)];
  const std::int64_t inner_stride = s[static_cast<std::size_t>(rank - 1)];
  const std::size_t row_bytes = static_cast<std::size_t>(inner) * esize;
  std::size_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= static_cast<std::size_t>(n[static_cast<std::size_t>(d)]);
  const std::size_t rows_per_piece = row_bytes >= kPieceBytes ? 1 : kPieceBytes / row_bytes;
  const std::size_t pieces = (rows + rows_per_piece - 1) / rows_per_piece;
  const auto e = static_cast<std::int64_t>(esize);
  context.parallel_for(pieces, kNanosecondsPerByte * static_cast<double>(rows * row_bytes), [&](std::size_t piece) {
    const std::size_t first = piece * rows_per_piece;
    const std::size_t last = first + rows_per_piece < rows ? first + rows_per_piece : rows;
    // The index of row `first` on the outer axes, and its element offset.
    std::array<std::int64_t, kMaxAxes> index{};
    std::int64_t at = 0;
    std::size_t rest = first;
    for (int d = rank - 2; d >= 0; --d) {
      const auto k = static_cast<std::size_t>(d);
      index[k] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(n[k]));
      rest /= static_cast<std::size_t>(n[k]);
      at += index[k] * s[k];
    }
    for (std::size_t r = first; r < last; ++r) {
      copy_row(dst + r * row_bytes, origin + at * e, inner, inner_stride, esize);
      for (int d = rank - 2; d >= 0; --d) {
        const auto k = static_cast<std::size_t>(d);
        at += s[k];
        if (++index[k] < n[k]) break;
        at -= index[k] * s[k];
        index[k] = 0;
      }
    }
  });
  return true;
}

}  // namespace onemodel::opt::datamove
