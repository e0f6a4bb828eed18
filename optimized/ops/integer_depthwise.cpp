#include "optimized/ops/integer_depthwise.hpp"

#include <algorithm>
#include <vector>

#include "optimized/ops/integer_chunks.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace onemodel::opt {
namespace {

// Elements past the last row that the vector paths' last step may read (its values unused).
constexpr std::int64_t kRowSlack = 8;

// The largest row buffer of one channel (int16 elements) the direct kernel makes.
constexpr std::int64_t kMaxRowElements = std::int64_t{1} << 26;

// One output row: y[ox] = sum_t rows[t][ox] * weights[t] (modulo 2^32).
using RowKernel = void (*)(const std::int16_t* const* rows, const std::int32_t* weights, std::size_t count,
                           std::int64_t width, std::int32_t* y);

// Outputs [start, width) of the row (the scalar path, and the tail of the vector paths).
void row_from(const std::int16_t* const* rows, const std::int32_t* weights, std::size_t count, std::int64_t start,
              std::int64_t width, std::int32_t* y) {
  for (std::int64_t ox = start; ox < width; ++ox) {
    std::uint32_t acc = 0;
    for (std::size_t t = 0; t < count; ++t) {
      acc += static_cast<std::uint32_t>(static_cast<std::int32_t>(rows[t][ox]) * weights[t]);
    }
    y[ox] = static_cast<std::int32_t>(acc);
  }
}

void row_scalar(const std::int16_t* const* rows, const std::int32_t* weights, std::size_t count, std::int64_t width,
                std::int32_t* y) {
  row_from(rows, weights, count, 0, width, y);
}

#if defined(__x86_64__)
// SSE4.1: 4 outputs per step, pmovsxwd then pmulld (the low 32 bits of an exact product).
__attribute__((target("sse4.1"))) void row_sse(const std::int16_t* const* rows, const std::int32_t* weights,
                                                std::size_t count, std::int64_t width, std::int32_t* y) {
  std::int64_t ox = 0;
  for (; ox + 8 <= width; ox += 8) {
    __m128i a0 = _mm_setzero_si128(), a1 = _mm_setzero_si128();
    for (std::size_t t = 0; t < count; ++t) {
      const __m128i w = _mm_set1_epi32(weights[t]);
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + ox));
      a0 = _mm_add_epi32(a0, _mm_mullo_epi32(_mm_cvtepi16_epi32(v), w));
      a1 = _mm_add_epi32(a1, _mm_mullo_epi32(_mm_cvtepi16_epi32(_mm_srli_si128(v, 8)), w));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + ox), a0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + ox + 4), a1);
  }
  if (ox < width) {
    // Reads up to 7 elements past the row: the buffer has kRowSlack of them.
    __m128i a0 = _mm_setzero_si128(), a1 = _mm_setzero_si128();
    for (std::size_t t = 0; t < count; ++t) {
      const __m128i w = _mm_set1_epi32(weights[t]);
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + ox));
      a0 = _mm_add_epi32(a0, _mm_mullo_epi32(_mm_cvtepi16_epi32(v), w));
      a1 = _mm_add_epi32(a1, _mm_mullo_epi32(_mm_cvtepi16_epi32(_mm_srli_si128(v, 8)), w));
    }
    alignas(16) std::int32_t tail[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(tail), a0);
    _mm_store_si128(reinterpret_cast<__m128i*>(tail + 4), a1);
    for (std::int64_t i = 0; ox + i < width; ++i) y[ox + i] = tail[i];
  }
}

// AVX2: 16 outputs per step in two accumulators, vpmovsxwd then vpmulld.
__attribute__((target("avx2"))) void row_avx2(const std::int16_t* const* rows, const std::int32_t* weights,
                                               std::size_t count, std::int64_t width, std::int32_t* y) {
  std::int64_t ox = 0;
  for (; ox + 16 <= width; ox += 16) {
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (std::size_t t = 0; t < count; ++t) {
      const __m256i w = _mm256_set1_epi32(weights[t]);
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[t] + ox));
      a0 = _mm256_add_epi32(a0, _mm256_mullo_epi32(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(v)), w));
      a1 = _mm256_add_epi32(a1, _mm256_mullo_epi32(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(v, 1)), w));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + ox), a0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + ox + 8), a1);
  }
  for (; ox < width; ox += 8) {
    // The last step may read up to 7 elements past the row: the buffer has kRowSlack of them.
    __m256i a0 = _mm256_setzero_si256();
    for (std::size_t t = 0; t < count; ++t) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + ox));
      a0 = _mm256_add_epi32(a0, _mm256_mullo_epi32(_mm256_cvtepi16_epi32(v), _mm256_set1_epi32(weights[t])));
    }
    if (ox + 8 <= width) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + ox), a0);
    } else {
      alignas(32) std::int32_t tail[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tail), a0);
      for (std::int64_t i = 0; ox + i < width; ++i) y[ox + i] = tail[i];
    }
  }
}
#endif

// out[j] = x(in[j * stride + shift]) - zx for j in [lo, hi), every index read inside the row of
// in_w bytes; x is int8 when x_signed, else uint8. The difference fits int16 (|.| <= 255).
using WidenKernel = void (*)(const std::uint8_t* in, std::int64_t shift, std::int64_t stride, std::int64_t lo,
                             std::int64_t hi, std::int64_t in_w, std::int32_t zx, bool x_signed, std::int16_t* out);

void widen_scalar(const std::uint8_t* in, std::int64_t shift, std::int64_t stride, std::int64_t lo, std::int64_t hi,
                  std::int64_t, std::int32_t zx, bool x_signed, std::int16_t* out) {
  if (x_signed) {
    for (std::int64_t j = lo; j < hi; ++j) out[j] = static_cast<std::int16_t>(static_cast<std::int8_t>(in[j * stride + shift]) - zx);
  } else {
    for (std::int64_t j = lo; j < hi; ++j) out[j] = static_cast<std::int16_t>(in[j * stride + shift] - zx);
  }
}

#if defined(__x86_64__)
// Strides 1 and 2 eight outputs at a time: 8 (or 16) bytes loaded, for stride 2 the even ones
// picked by pshufb, widened (pmovzxbw / pmovsxbw) and shifted by the zero point, exactly as the
// scalar loop. A step is taken only while its load stays inside the row.
__attribute__((target("sse4.1"))) void widen_sse(const std::uint8_t* in, std::int64_t shift, std::int64_t stride,
                                                  std::int64_t lo, std::int64_t hi, std::int64_t in_w, std::int32_t zx,
                                                  bool x_signed, std::int16_t* out) {
  std::int64_t j = lo;
  if (stride <= 2) {
    const __m128i z = _mm_set1_epi16(static_cast<std::int16_t>(zx));
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
    const std::int64_t load = stride == 1 ? 8 : 16;
    for (; j + 8 <= hi && j * stride + shift + load <= in_w; j += 8) {
      const std::uint8_t* src = in + (j * stride + shift);
      __m128i v = stride == 1 ? _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src))
                              : _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)), even);
      v = x_signed ? _mm_cvtepi8_epi16(v) : _mm_cvtepu8_epi16(v);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), _mm_sub_epi16(v, z));
    }
  }
  widen_scalar(in, shift, stride, j, hi, in_w, zx, x_signed, out);
}
#endif

WidenKernel widen_kernel(Isa isa) {
#if defined(__x86_64__)
  if (isa != Isa::Scalar) return widen_sse;
#endif
  (void)isa;
  return widen_scalar;
}

RowKernel row_kernel(Isa isa) {
#if defined(__x86_64__)
  if (isa == Isa::Avx2 || isa == Isa::Avx512) return row_avx2;
  if (isa == Isa::Sse) return row_sse;
#endif
  (void)isa;
  return row_scalar;
}

// Row buffer geometry: each input row (depth and height combined) as `stride` phases of `len`
// int16, phase p holding padded positions p, p + stride, ... (padded position q is input column
// q - pad_before).
struct Rows {
  std::int64_t count = 0, stride = 1, len = 0;
};

Rows rows_of(const quant::IntegerConvGeometry& g) {
  const conv_geometry::Axis& aw = g.axes[2];
  Rows r;
  r.count = g.axes[0].in * g.axes[1].in;
  r.stride = aw.stride;
  r.len = aw.out + (aw.kernel - 1) * aw.dilation / aw.stride;
  return r;
}

}  // namespace

bool integer_depthwise_fits(const quant::IntegerConvGeometry& g) {
  const conv_geometry::Axis& aw = g.axes[2];
  if (aw.stride < 1 || aw.dilation < 1 || aw.kernel < 1 || aw.out < 0) return false;
  // Each factor is checked before the product is formed (untrusted shapes).
  if (aw.kernel - 1 > kMaxRowElements / aw.dilation) return false;
  const Rows r = rows_of(g);
  if (r.len > kMaxRowElements || r.stride > kMaxRowElements / (r.len + 1)) return false;
  const std::int64_t row = r.stride * r.len;
  return r.count <= kMaxRowElements / (row + 1);
}

void integer_depthwise(const quant::IntegerConvGeometry& g, const std::uint8_t* x, bool x_signed, std::int32_t zx,
                       const std::int32_t* taps, std::int32_t* y, ThreadPool* pool, Isa isa,
                       const IntegerConvEpilogue* epilogue) {
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  const std::int64_t mult = g.m / g.c;
  const std::int64_t ntaps = ad.kernel * ah.kernel * aw.kernel;
  const std::int64_t plane_in = ad.in * ah.in * aw.in;
  const std::int64_t plane_out = ad.out * ah.out * aw.out;
  if (g.n == 0 || g.m == 0 || plane_out == 0) return;
  const Rows rows = rows_of(g);
  const RowKernel kernel = row_kernel(isa);
  const auto chunk = [&](std::size_t index) {
    const std::int64_t n = static_cast<std::int64_t>(index) / g.c, ch = static_cast<std::int64_t>(index) % g.c;
    const std::uint8_t* plane = x + (n * g.c + ch) * plane_in;
    // The channel's rows, widened, shifted by the zero point, padded with zeros and phase-split.
    thread_local std::vector<std::int16_t> buffer;
    buffer.assign(static_cast<std::size_t>(rows.count * rows.stride * rows.len + kRowSlack), 0);
    std::int16_t* const rows_out = buffer.data();
    const WidenKernel widen = widen_kernel(isa);
    for (std::int64_t p = 0; p < rows.stride; ++p) {
      // Phase p's element j is input column j * stride + p - pad_before: inside for j in [lo, hi).
      const std::int64_t first = aw.pad_before - p, end = aw.in + aw.pad_before - p;
      const std::int64_t lo = first <= 0 ? 0 : (first + rows.stride - 1) / rows.stride;
      const std::int64_t hi = end <= 0 ? 0 : std::min(rows.len, (end + rows.stride - 1) / rows.stride);
      for (std::int64_t r = 0; r < rows.count; ++r) {
        const std::uint8_t* in = plane + r * aw.in;
        const std::int64_t shift = p - aw.pad_before;
        std::int16_t* out = rows_out + (r * rows.stride + p) * rows.len;
        widen(in, shift, rows.stride, lo, hi, aw.in, zx, x_signed, out);
      }
    }
    thread_local std::vector<const std::int16_t*> row_ptrs;
    thread_local std::vector<std::int32_t> weights;
    thread_local std::vector<std::int64_t> column_offset;
    row_ptrs.resize(static_cast<std::size_t>(ntaps));
    weights.resize(static_cast<std::size_t>(ntaps));
    // Where tap kx of output 0 lies within a row's phases (padded position kx * dilation).
    column_offset.resize(static_cast<std::size_t>(aw.kernel));
    for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
      const std::int64_t q = kx * aw.dilation;
      column_offset[static_cast<std::size_t>(kx)] = (q % rows.stride) * rows.len + q / rows.stride;
    }
    for (std::int64_t j = 0; j < mult; ++j) {
      const std::int64_t oc = ch * mult + j;
      const std::int32_t* w = taps + oc * ntaps;
      std::int32_t* out_plane = y + (n * g.m + oc) * plane_out;
      for (std::int64_t od = 0; od < ad.out; ++od) {
        for (std::int64_t oy = 0; oy < ah.out; ++oy) {
          std::size_t used = 0;
          for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
            const std::int64_t id = od * ad.stride - ad.pad_before + kd * ad.dilation;
            if (id < 0 || id >= ad.in) continue;
            for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
              const std::int64_t iy = oy * ah.stride - ah.pad_before + ky * ah.dilation;
              if (iy < 0 || iy >= ah.in) continue;
              const std::int64_t r = id * ah.in + iy;
              for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
                row_ptrs[used] = rows_out + r * rows.stride * rows.len + column_offset[static_cast<std::size_t>(kx)];
                weights[used++] = w[(kd * ah.kernel + ky) * aw.kernel + kx];
              }
            }
          }
          std::int32_t* out = out_plane + (od * ah.out + oy) * aw.out;
          if (used == 0) {
            for (std::int64_t ox = 0; ox < aw.out; ++ox) out[ox] = 0;
          } else {
            kernel(row_ptrs.data(), weights.data(), used, aw.out, out);
          }
        }
      }
    }
    if (epilogue != nullptr) (*epilogue)(n, ch * mult, mult, 0, plane_out);
  };
  const double estimate = 1.0 * static_cast<double>(g.n * g.m * plane_out * ntaps);
  run_integer_chunks(pool, static_cast<std::size_t>(g.n * g.c), estimate, chunk);
}

}  // namespace onemodel::opt
