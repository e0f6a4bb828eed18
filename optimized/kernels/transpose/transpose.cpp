// Blocked transpose and strided copy (transpose.hpp). The walk is portable; the 2-D tiles of
// 4-byte elements use the path's register transpose (tile_paths.hpp, chosen from the registry list
// transpose_list.inc), the others a scalar loop.
#include "optimized/kernels/transpose/transpose.hpp"

#include <cstring>

#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/transpose/tile_paths.hpp"

namespace onemodel::opt::tr {
namespace {

// The output index space, axes of extent 1 dropped and adjacent axes merged where the input
// walks them as one: extent and input stride (elements) per kept output axis.
struct Walk {
  int rank = 0;
  std::int64_t extent[kMaxRank] = {};
  std::int64_t src_stride[kMaxRank] = {};
  std::int64_t dst_stride[kMaxRank] = {};
};

// shape: the output's extents; src_stride: the source's stride (elements, any sign, 0 for a
// broadcast axis) along each output axis.
Walk make_walk(std::span<const std::int32_t> shape, const std::int64_t* src_stride) {
  const int rank = static_cast<int>(shape.size());
  Walk w;
  for (int axis = 0; axis < rank; ++axis) {
    const std::int64_t e = shape[static_cast<std::size_t>(axis)];
    if (e == 1) continue;
    if (w.rank > 0 && w.src_stride[w.rank - 1] == src_stride[axis] * e) {
      w.extent[w.rank - 1] *= e;
      w.src_stride[w.rank - 1] = src_stride[axis];
      continue;
    }
    w.extent[w.rank] = e;
    w.src_stride[w.rank] = src_stride[axis];
    ++w.rank;
  }
  if (w.rank == 0) {
    w.rank = 1;
    w.extent[0] = 1;
    w.src_stride[0] = 1;
  }
  std::int64_t d = 1;
  for (int i = w.rank - 1; i >= 0; --i) {
    w.dst_stride[i] = d;
    d *= w.extent[i];
  }
  return w;
}

// Source and destination offsets of the outer index `flat` over the axes not in `skip` (a bit
// mask of axes), row-major over the remaining axes.
void outer_offsets(const Walk& w, unsigned skip, std::size_t flat, std::int64_t& src, std::int64_t& dst) {
  src = 0;
  dst = 0;
  for (int d = w.rank - 1; d >= 0; --d) {
    if (skip & (1u << d)) continue;
    const std::int64_t i = static_cast<std::int64_t>(flat % static_cast<std::size_t>(w.extent[d]));
    flat /= static_cast<std::size_t>(w.extent[d]);
    src += i * w.src_stride[d];
    dst += i * w.dst_stride[d];
  }
}

// Output axes except p and the last: how many outer indices.
std::size_t outer_count(const Walk& w, unsigned skip) {
  std::size_t n = 1;
  for (int d = 0; d < w.rank; ++d) {
    if (!(skip & (1u << d))) n *= static_cast<std::size_t>(w.extent[d]);
  }
  return n;
}

// dst[i * dst_row + j] = src[i + j * src_col] for i in [i0, i1), j in [j0, j1), in 8 x 8 blocks so
// that a block touches 8 source and 8 destination lines (power-of-two strides map whole columns
// of a larger tile onto one cache set).
template <class T>
void transpose_tile(const T* src, std::int64_t src_col, T* dst, std::int64_t dst_row, std::size_t i0, std::size_t i1,
                    std::size_t j0, std::size_t j1) {
  constexpr std::size_t kBlock = 8;
  for (std::size_t ib = i0; ib < i1; ib += kBlock) {
    const std::size_t ie = ib + kBlock < i1 ? ib + kBlock : i1;
    for (std::size_t jb = j0; jb < j1; jb += kBlock) {
      const std::size_t je = jb + kBlock < j1 ? jb + kBlock : j1;
      for (std::size_t i = ib; i < ie; ++i) {
        T* row = dst + static_cast<std::int64_t>(i) * dst_row;
        const T* column = src + i;
        for (std::size_t j = jb; j < je; ++j) row[j] = column[static_cast<std::int64_t>(j) * src_col];
      }
    }
  }
}

// The registry table, from the list (transpose_list.inc).
constexpr Variant kVariants[] = {
#define ONEMODEL_TR_VARIANT(suffix, isa, name) Variant{name, Isa::isa, transpose_tile_4byte__##suffix},
#define ONEMODEL_TR_SCALAR_VARIANT(name) Variant{name, Isa::Scalar, nullptr},
#include "optimized/kernels/transpose/transpose_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp), so
// the AVX2 tile on the AVX-512 path (this family has no 512-bit kernel).
const Variant& variant_for(Isa isa) noexcept {
  static const VariantChoice<Variant> choice{std::span<const Variant>(kVariants)};
  return choice[isa];
}

// The register-transpose tile of the path, when it has one (4-byte elements only).
bool tile_4byte(Isa isa, const std::uint32_t* src, std::int64_t src_col, std::uint32_t* dst, std::int64_t dst_row,
                std::size_t rows, std::size_t cols) {
  const TileFn tile = variant_for(isa).tile;
  if (tile == nullptr) return false;
  tile(src, src_col, dst, dst_row, rows, cols);
  return true;
}

template <class T>
void run_transpose(const KernelContext& context, const Walk& w, const T* in, T* out) {
  const int last = w.rank - 1;
  std::size_t total = 1;
  for (int d = 0; d < w.rank; ++d) total *= static_cast<std::size_t>(w.extent[d]);
  if (total == 0) return;
  const double estimate = static_cast<double>(total) * 0.5 * static_cast<double>(sizeof(T)) / 4.0;
  int p = 0;  // an output axis other than the last that is contiguous in the source, if any
  while (p < last && w.src_stride[p] != 1) ++p;
  if (w.src_stride[last] == 1 || p == last) {
    // Runs of the last axis: contiguous runs are copied whole, others element by element (a
    // broadcast or strided source); groups of runs per chunk, or pieces of one long run.
    const std::size_t run = static_cast<std::size_t>(w.extent[last]);
    const std::size_t rows = total / run;
    const std::size_t pieces = (run + kCopyChunkElements - 1) / kCopyChunkElements;
    const std::size_t rows_per_chunk = run >= kCopyChunkElements ? 1 : kCopyChunkElements / run;
    const std::size_t chunks = pieces > 1 ? rows * pieces : (rows + rows_per_chunk - 1) / rows_per_chunk;
    const unsigned skip = 1u << last;
    context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
      std::size_t first, count, col = 0, cols = run;
      if (pieces > 1) {
        first = chunk / pieces;
        count = 1;
        col = (chunk % pieces) * kCopyChunkElements;
        cols = run - col < kCopyChunkElements ? run - col : kCopyChunkElements;
      } else {
        first = chunk * rows_per_chunk;
        count = rows - first < rows_per_chunk ? rows - first : rows_per_chunk;
      }
      const std::int64_t step = w.src_stride[last];
      for (std::size_t r = first; r < first + count; ++r) {
        std::int64_t src, dst;
        outer_offsets(w, skip, r, src, dst);
        T* target = out + dst + static_cast<std::int64_t>(col);
        const T* source = in + src + static_cast<std::int64_t>(col) * step;
        if (step == 1) {
          std::memcpy(target, source, cols * sizeof(T));
        } else {
          for (std::size_t j = 0; j < cols; ++j) target[j] = source[static_cast<std::int64_t>(j) * step];
        }
      }
    });
    return;
  }
  // The plane (p, last) is a 2-D transpose.
  const unsigned skip = (1u << p) | (1u << last);
  const std::size_t outer = outer_count(w, skip);
  const std::size_t rows = static_cast<std::size_t>(w.extent[p]);
  const std::size_t cols = static_cast<std::size_t>(w.extent[last]);
  const std::size_t row_tiles = (rows + kTile - 1) / kTile;
  const std::size_t col_tiles = (cols + kTile - 1) / kTile;
  const std::size_t chunks = outer * row_tiles * col_tiles;
  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    const std::size_t o = chunk / (row_tiles * col_tiles);
    const std::size_t tile = chunk % (row_tiles * col_tiles);
    const std::size_t i0 = (tile / col_tiles) * kTile;
    const std::size_t j0 = (tile % col_tiles) * kTile;
    std::int64_t src, dst;
    outer_offsets(w, skip, o, src, dst);
    const std::size_t i1 = i0 + kTile < rows ? i0 + kTile : rows;
    const std::size_t j1 = j0 + kTile < cols ? j0 + kTile : cols;
    if constexpr (sizeof(T) == 4) {
      // Sub-tiles of kSubTile: with power-of-two strides a whole tile's lines fall into one cache
      // set; smaller sub-tiles keep what a block touches within the set's ways (measured).
      const std::int64_t sc = w.src_stride[last];
      const std::int64_t dr = w.dst_stride[p];
      const auto* s32 = reinterpret_cast<const std::uint32_t*>(in + src);
      auto* d32 = reinterpret_cast<std::uint32_t*>(out + dst);
      bool done = true;
      for (std::size_t si = i0; si < i1 && done; si += kSubTile) {
        const std::size_t se = si + kSubTile < i1 ? si + kSubTile : i1;
        for (std::size_t sj = j0; sj < j1 && done; sj += kSubTile) {
          const std::size_t sje = sj + kSubTile < j1 ? sj + kSubTile : j1;
          done = tile_4byte(context.isa, s32 + si + static_cast<std::int64_t>(sj) * sc, sc,
                            d32 + static_cast<std::int64_t>(si) * dr + static_cast<std::int64_t>(sj), dr, se - si,
                            sje - sj);
        }
      }
      if (done) return;
    }
    transpose_tile(in + src, w.src_stride[last], out + dst, w.dst_stride[p], i0, i1, j0, j1);
  });
}

}  // namespace

std::span<const Variant> variants() noexcept { return kVariants; }

bool strided_copy(const KernelContext& context, std::size_t element_size, const void* src,
                  std::span<const std::int32_t> shape, std::span<const std::int64_t> src_strides, void* dst) {
  if (shape.size() > static_cast<std::size_t>(kMaxRank) || src_strides.size() != shape.size()) return false;
  const Walk w = make_walk(shape, src_strides.data());
  switch (element_size) {
    case 1:
      run_transpose(context, w, static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst));
      return true;
    case 2:
      run_transpose(context, w, static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst));
      return true;
    case 4:
      run_transpose(context, w, static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst));
      return true;
    case 8:
      run_transpose(context, w, static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst));
      return true;
    default:
      return false;
  }
}

bool transpose(const KernelContext& context, std::size_t element_size, const void* in,
               std::span<const std::int32_t> in_shape, std::span<const int> perm, void* out) {
  const std::size_t rank = in_shape.size();
  if (rank > static_cast<std::size_t>(kMaxRank) || perm.size() != rank) return false;
  // Row-major strides of the input, then the output's shape and source strides in output order.
  std::int64_t in_stride[kMaxRank] = {};
  std::int64_t s = 1;
  for (std::size_t d = rank; d-- > 0;) {
    in_stride[d] = s;
    s *= in_shape[d];
  }
  std::int32_t out_shape[kMaxRank] = {};
  std::int64_t src_stride[kMaxRank] = {};
  for (std::size_t i = 0; i < rank; ++i) {
    const auto axis = static_cast<std::size_t>(perm[i]);
    out_shape[i] = in_shape[axis];
    src_stride[i] = in_stride[axis];
  }
  return strided_copy(context, element_size, in, std::span<const std::int32_t>(out_shape, rank),
                      std::span<const std::int64_t>(src_stride, rank), out);
}

}  // namespace onemodel::opt::tr
