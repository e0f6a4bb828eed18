// Driver of the float32 pooling kernels (optimized/kernels/pool/pool.hpp; spec/ops/products-conv.md
// section 8). pool_2d_f32 splits each output row into border columns, computed one output at a
// time by the reference's literal rule, and interior columns, where every tap of the window lies
// inside the input row, handed to the path's vector row loop (pool_row.hpp) with the list of
// window rows inside the input. Max interior results equal to -inf are recomputed by the literal
// rule (section 8.2: -inf from the fold means every inside tap was NaN or -inf, and only the rule
// tells those apart). Chunks are whole planes, max(1, 32768 / (outputs * taps per plane)) of
// them, a function of the shape only.
#include "optimized/kernels/pool/pool.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "optimized/frame/canonical_nan.hpp"
#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/pool/pool_average_depthwise.hpp"
#include "optimized/kernels/pool/pool_global.hpp"
#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_max_direct.hpp"
#include "optimized/kernels/pool/pool_max_rows.hpp"
#include "optimized/kernels/pool/pool_max_separable.hpp"
#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {
namespace {

constexpr std::int64_t kChunkWork = 32768;
constexpr double kNanosecondsPerTap = 0.3;

// The registry table, from the list (pool_list.inc).
constexpr Variant kVariants[] = {
#define ONEMODEL_POOL_VARIANT(suffix, isa, name) Variant{name, Isa::isa, pool_row_f32__##suffix},
#include "optimized/kernels/pool/pool_list.inc"
};

// The row loop serving each path: the first listed variant allowed there (kernel_registry.hpp),
// by level, so NEON and WASM run the scalar one.
PoolRowFn row_for(Isa isa) noexcept {
  static const VariantChoice<Variant> choice{std::span<const Variant>(kVariants)};
  return choice[isa].row;
}

// Section 8.3: taps of one axis's window inside the input or its declared padding (never the
// ceil_mode overhang), as reference/ops/pool_window.hpp counts them.
std::int64_t taps_within_padding(const PoolAxis& a, std::int64_t o) noexcept {
  std::int64_t count = 0;
  for (std::int64_t k = 0; k < a.kernel; ++k) {
    const std::int64_t p = o * a.stride - a.pad_before + k * a.dilation;
    if (p >= -a.pad_before && p < a.in + a.pad_after) ++count;
  }
  return count;
}

}  // namespace

float max_one(const Pool2dShape& s, const float* plane, std::int64_t oy, std::int64_t ox) noexcept {
  bool started = false;
  bool saw_nan = false;
  float best = 0.0f;
  for (std::int64_t ky = 0; ky < s.h.kernel; ++ky) {
    const std::int64_t h = oy * s.h.stride - s.h.pad_before + ky * s.h.dilation;
    if (h < 0 || h >= s.h.in) continue;
    for (std::int64_t kx = 0; kx < s.w.kernel; ++kx) {
      const std::int64_t w = ox * s.w.stride - s.w.pad_before + kx * s.w.dilation;
      if (w < 0 || w >= s.w.in) continue;
      const float v = plane[h * s.w.in + w];
      if (v != v) {
        saw_nan = true;
        continue;
      }
      if (!started || v > best) {
        started = true;
        best = v;
      }
    }
  }
  if (started) return best;
  if (saw_nan) return std::numeric_limits<float>::quiet_NaN();
  return std::numeric_limits<float>::lowest();
}

namespace {

// Section 8.3, literally (reference/ops/op_average_pool.cpp): the inside taps summed from +0 in
// (h, w) order, divided by the number of inside taps or, with count_include_pad, by the taps
// within the declared padding; NaN canonical.
float average_one(const Pool2dShape& s, const float* plane, std::int64_t oy, std::int64_t ox) noexcept {
  float sum = 0.0f;
  std::int64_t inside = 0;
  for (std::int64_t ky = 0; ky < s.h.kernel; ++ky) {
    const std::int64_t h = oy * s.h.stride - s.h.pad_before + ky * s.h.dilation;
    if (h < 0 || h >= s.h.in) continue;
    for (std::int64_t kx = 0; kx < s.w.kernel; ++kx) {
      const std::int64_t w = ox * s.w.stride - s.w.pad_before + kx * s.w.dilation;
      if (w < 0 || w >= s.w.in) continue;
      sum = sum + plane[h * s.w.in + w];
      ++inside;
    }
  }
  const std::int64_t divisor =
      s.count_include_pad ? taps_within_padding(s.h, oy) * taps_within_padding(s.w, ox) : inside;
  return canonical_nan(sum / static_cast<float>(divisor));
}

float one(PoolKind kind, const Pool2dShape& s, const float* plane, std::int64_t oy, std::int64_t ox) noexcept {
  return kind == PoolKind::Max ? max_one(s, plane, oy, ox) : average_one(s, plane, oy, ox);
}

struct Interior {
  std::int64_t lo = 0, hi = 0;  // output columns [lo, hi) served by the row loop
};

// Columns whose window columns ox*sw - pl + k*dw (k < kw) all lie in [0, in), and with stride 2
// also the element after the last one (the vector loads read it, pool_row.hpp). Pads are >= 0.
Interior interior_columns(const PoolAxis& a) noexcept {
  const std::int64_t extra = a.stride == 2 ? 1 : 0;
  std::int64_t lo = (a.pad_before + a.stride - 1) / a.stride;
  const std::int64_t last = a.in - 1 - extra + a.pad_before - (a.kernel - 1) * a.dilation;
  std::int64_t hi = last < 0 ? 0 : last / a.stride + 1;
  if (lo > a.out) lo = a.out;
  if (hi > a.out) hi = a.out;
  if (hi < lo) hi = lo;
  return {lo, hi};
}

void pool_plane(PoolRowFn row, PoolKind kind, const Pool2dShape& s, const Interior& cols, const float* plane,
                float* y, const float** rows) {
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  for (std::int64_t oy = 0; oy < H.out; ++oy) {
    float* yrow = y + oy * W.out;
    // The window rows inside the input, in ky order, each at the first interior column's window
    // (formed only when there are interior columns, so the pointer stays inside its row).
    std::int64_t nrows = 0;
    for (std::int64_t ky = 0; ky < H.kernel && cols.hi > cols.lo; ++ky) {
      const std::int64_t h = oy * H.stride - H.pad_before + ky * H.dilation;
      if (h < 0 || h >= H.in) continue;
      rows[static_cast<std::size_t>(nrows++)] = plane + h * W.in + (cols.lo * W.stride - W.pad_before);
    }
    for (std::int64_t ox = 0; ox < cols.lo; ++ox) yrow[ox] = one(kind, s, plane, oy, ox);
    if (nrows > 0 && cols.hi > cols.lo) {
      row(kind, rows, nrows, W.kernel, W.stride, W.dilation, cols.hi - cols.lo, yrow + cols.lo);
      if (kind == PoolKind::Max) {
        for (std::int64_t ox = cols.lo; ox < cols.hi; ++ox) {
          if (yrow[ox] == -std::numeric_limits<float>::infinity()) yrow[ox] = max_one(s, plane, oy, ox);
        }
      } else {
        // Every tap column of an interior output is inside the input, so its width factor is
        // kernel in both divisor rules (section 8.3).
        const std::int64_t divisor = (s.count_include_pad ? taps_within_padding(H, oy) : nrows) * W.kernel;
        const float d = static_cast<float>(divisor);
        for (std::int64_t ox = cols.lo; ox < cols.hi; ++ox) yrow[ox] = canonical_nan(yrow[ox] / d);
      }
    } else {
      for (std::int64_t ox = cols.lo; ox < cols.hi; ++ox) yrow[ox] = one(kind, s, plane, oy, ox);
    }
    for (std::int64_t ox = cols.hi; ox < W.out; ++ox) yrow[ox] = one(kind, s, plane, oy, ox);
  }
}

template <bool IsMax>
void global_planes(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t size) noexcept {
  // Eight planes at once: eight independent sequential chains (instruction-level parallelism),
  // each plane still folded in index order from its start value (section 8.4).
  constexpr std::size_t kGroup = kGlobalGroup;
  const float start = IsMax ? std::numeric_limits<float>::lowest() : 0.0f;
  auto finish = [size](float acc) noexcept { return IsMax ? acc : canonical_nan(acc / static_cast<float>(size)); };
  std::size_t p = begin;
  for (; p + kGroup <= end; p += kGroup) {
    const float* base = x + p * size;
    float acc[kGroup];
    for (std::size_t j = 0; j < kGroup; ++j) acc[j] = start;
    for (std::size_t i = 0; i < size; ++i) {
      for (std::size_t j = 0; j < kGroup; ++j) {
        const float v = base[j * size + i];
        if constexpr (IsMax) {
          acc[j] = (v > acc[j]) ? v : acc[j];
        } else {
          acc[j] = acc[j] + v;
        }
      }
    }
    for (std::size_t j = 0; j < kGroup; ++j) y[p + j] = finish(acc[j]);
  }
  for (; p < end; ++p) {
    const float* base = x + p * size;
    float acc = start;
    for (std::size_t i = 0; i < size; ++i) {
      const float v = base[i];
      if constexpr (IsMax) {
        acc = (v > acc) ? v : acc;
      } else {
        acc = acc + v;
      }
    }
    y[p] = finish(acc);
  }
}

}  // namespace

std::span<const Variant> variants() noexcept { return kVariants; }

// Window rows a pooling chunk keeps on its stack (see pool_2d_f32); taller kernels allocate.
constexpr std::size_t kStackWindowRows = 64;

void pool_2d_f32(const KernelContext& context, PoolKind kind, const Pool2dShape& shape, const float* x, float* y) {
  const std::int64_t in_plane = shape.h.in * shape.w.in;
  const std::int64_t out_plane = shape.h.out * shape.w.out;
  if (shape.planes <= 0 || out_plane <= 0) return;
  // Average pooling: the depthwise walk's sums, then the divisions (pool_average_depthwise.hpp).
  if (kind == PoolKind::Average && average_takes_depthwise(shape)) {
    average_planes_depthwise(context, shape, x, y);
    return;
  }
  const std::int64_t taps = shape.h.kernel * shape.w.kernel;
  const std::int64_t plane_work = out_plane * (taps > 0 ? taps : 1);
  const std::int64_t per_chunk = plane_work >= kChunkWork ? 1 : kChunkWork / plane_work;
  const std::int64_t chunks = (shape.planes + per_chunk - 1) / per_chunk;
  const double estimate = kNanosecondsPerTap * static_cast<double>(shape.planes) * static_cast<double>(plane_work);
  const PoolRowFn row = row_for(context.isa);
  const Interior cols = interior_columns(shape.w);
  // Max pooling: on the AVX-512 and AVX2 paths the two passes of row maxima for 3-wide windows at
  // width stride 1 or 2 (pool_max_rows.hpp: 0.72-0.84x the direct kernel's time on the 3 x 3 pools
  // of GoogLeNet and SqueezeNet, one thread, Intel Xeon, AVX-512, session 23), the direct masked
  // kernel (pool_max_direct.hpp) for other windows; elsewhere (and for the shapes neither takes), at
  // height stride 1, the two passes (pool_max_separable.hpp) when their storage fits a modest
  // per-thread buffer (16 MiB), which measured faster than the one-pass loop only there (AVX2,
  // 3 x 3 windows: 7 x 7 maps 2x, 14 x 14 2.8x, 28 x 28 1.3x; stride 2 on 112 x 112 1.15x slower).
  // On AVX2 the same two kernels on eight lanes took 0.36-0.64x the time of the loops they replace
  // (the row loop, the two passes at height stride 1) on GoogLeNet's thirteen MaxPools, 3 x 3
  // stride 2 on 64 x 112 x 112 with ceil_mode 585 -> 270 us, and 0.53x on ResNet-50's stem
  // (AMD Zen 3, one thread, session 34).
  // Every loop gives the same bits, so the choice cannot change a result.
  const bool vector_max = kind == PoolKind::Max && (context.isa == Isa::Avx512 || context.isa == Isa::Avx2);
  const bool by_rows = vector_max && rows_max_takes(shape);
  const bool direct = vector_max && !by_rows && direct_max_takes(shape);
  const bool separable = kind == PoolKind::Max && !direct && shape.h.stride == 1 &&
                         separable_storage_floats(shape, per_chunk) <= (std::size_t{1} << 22);
  context.parallel_for(static_cast<std::size_t>(chunks), estimate, [&](std::size_t c) {
    // One pointer per window row. Kernels up to kStackWindowRows rows tall (every pooling of the
    // models we run: 2, 3, 7) use the stack, so a chunk allocates nothing (spec/optimized-engine.md
    // section 5, allocation-free warm runs); taller ones take a vector.
    const std::size_t needed = static_cast<std::size_t>(shape.h.kernel > 0 ? shape.h.kernel : 1);
    const float* stack_rows[kStackWindowRows];
    std::vector<const float*> heap_rows;
    const float** rows = stack_rows;
    if (needed > kStackWindowRows) {
      heap_rows.resize(needed);
      rows = heap_rows.data();
    }
    const std::int64_t begin = static_cast<std::int64_t>(c) * per_chunk;
    const std::int64_t end = begin + per_chunk < shape.planes ? begin + per_chunk : shape.planes;
#if defined(__x86_64__)
    const bool wide = context.isa == Isa::Avx512;
    if (by_rows) {
      return (wide ? max_planes_rows__avx512 : max_planes_rows__avx2)(shape, x + begin * in_plane,
                                                                       y + begin * out_plane, end - begin);
    }
    if (direct) {
      return (wide ? max_planes_direct__avx512 : max_planes_direct__avx2)(shape, x + begin * in_plane,
                                                                           y + begin * out_plane, end - begin);
    }
#endif
    if (separable) return max_planes_separable(row, shape, x + begin * in_plane, y + begin * out_plane, end - begin, rows);
    for (std::int64_t p = begin; p < end; ++p) pool_plane(row, kind, shape, cols, x + p * in_plane, y + p * out_plane, rows);
  });
}

void global_pool_f32(const KernelContext& context, PoolKind kind, const float* x, float* y, std::size_t planes,
                     std::size_t size) {
  if (planes == 0) return;
  const std::size_t work = size > 0 ? size : 1;
  std::size_t per_chunk = work >= static_cast<std::size_t>(kChunkWork) ? 1 : static_cast<std::size_t>(kChunkWork) / work;
  // The AVX-512 loop folds sixteen planes at once, one per lane: chunks of whole sixteens, or a
  // large plane (EfficientNet's squeeze of 32 x 112 x 112) ran one plane a chunk in one lane of
  // sixteen, 272 us where 16 a chunk take 34. Each plane keeps its one fold whatever the chunk.
  // The AVX2 loop takes eight planes a lane each and the scalar loop eight planes as eight chains
  // (a plane alone is one chain of dependent additions): chunks of whole eights there.
  const std::size_t group = context.isa == Isa::Avx512 ? kGlobalLanes : kGlobalGroup;
  per_chunk = (per_chunk + group - 1) / group * group;
  const std::size_t chunks = (planes + per_chunk - 1) / per_chunk;
  const double estimate = kNanosecondsPerTap * static_cast<double>(planes) * static_cast<double>(work);
  context.parallel_for(chunks, estimate, [&](std::size_t c) {
    const std::size_t begin = c * per_chunk;
    const std::size_t end = begin + per_chunk < planes ? begin + per_chunk : planes;
#if defined(__x86_64__)
    // Sixteen planes in the lanes (pool_global.hpp); the same bits as the loop below.
    if (context.isa == Isa::Avx512) return global_planes__avx512(kind == PoolKind::Max, x, y, begin, end, size);
    // Eight planes in the lanes on AVX2 (pool_global.hpp); the same bits.
    if (context.isa == Isa::Avx2) return global_planes__avx2(kind == PoolKind::Max, x, y, begin, end, size);
#endif
    if (kind == PoolKind::Max) {
      global_planes<true>(x, y, begin, end, size);
    } else {
      global_planes<false>(x, y, begin, end, size);
    }
  });
}

}  // namespace onemodel::opt::pool
