#include "optimized/ops/integer_requantize.hpp"

#include "reference/ops/integer_products.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace onemodel::opt {
namespace {

// Elements [start, count) with the reference's own functions.
void requantize_scalar(const std::int32_t* acc, std::size_t start, std::size_t count, const float* mult,
                       std::size_t mult_step, const std::int32_t* bias, std::size_t bias_step, std::int32_t zy,
                       quant::Range range, std::uint8_t* out) {
  for (std::size_t i = start; i < count; ++i) {
    const std::int64_t b = bias == nullptr ? 0 : bias[i * bias_step];
    const std::int32_t with_bias = quant::wrap_to_int32(static_cast<std::int64_t>(acc[i]) + b);
    out[i] = static_cast<std::uint8_t>(quant::requantize(with_bias, mult[i * mult_step], zy, range));
  }
}

#if defined(__x86_64__)
// The clamp before the conversion: integral, exact in float32, beyond every 8-bit range plus zy.
constexpr float kClamp = 8388608.0f;

__attribute__((target("sse4.1"))) inline __m128i requantize4(__m128i a, __m128 m, __m128i zy, __m128i lo, __m128i hi) {
  const __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(a), m);
  __m128 r = _mm_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm_max_ps(r, _mm_set1_ps(-kClamp));  // NaN -> -2^23 (maxps returns the second operand)
  r = _mm_min_ps(r, _mm_set1_ps(kClamp));
  const __m128i q = _mm_add_epi32(_mm_cvtps_epi32(r), zy);
  return _mm_min_epi32(_mm_max_epi32(q, lo), hi);
}

__attribute__((target("sse4.1"))) void requantize_sse(const std::int32_t* acc, std::size_t count, const float* mult,
                                                       std::size_t mult_step, const std::int32_t* bias,
                                                       std::size_t bias_step, std::int32_t zy, quant::Range range,
                                                       std::uint8_t* out) {
  const __m128i z = _mm_set1_epi32(zy);
  const __m128i lo = _mm_set1_epi32(static_cast<std::int32_t>(range.lo));
  const __m128i hi = _mm_set1_epi32(static_cast<std::int32_t>(range.hi));
  const bool is_unsigned = range.lo == 0;
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(acc + i));
    __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(acc + i + 4));
    if (bias != nullptr) {
      // int32 addition wraps modulo 2^32 (paddd), as wrap_to_int32 does.
      a0 = _mm_add_epi32(a0, bias_step == 0 ? _mm_set1_epi32(bias[0]) : _mm_loadu_si128(reinterpret_cast<const __m128i*>(bias + i)));
      a1 = _mm_add_epi32(a1, bias_step == 0 ? _mm_set1_epi32(bias[0]) : _mm_loadu_si128(reinterpret_cast<const __m128i*>(bias + i + 4)));
    }
    const __m128 m0 = mult_step == 0 ? _mm_set1_ps(mult[0]) : _mm_loadu_ps(mult + i);
    const __m128 m1 = mult_step == 0 ? _mm_set1_ps(mult[0]) : _mm_loadu_ps(mult + i + 4);
    // In range already, so the saturating packs only narrow.
    const __m128i p16 = _mm_packs_epi32(requantize4(a0, m0, z, lo, hi), requantize4(a1, m1, z, lo, hi));
    const __m128i p8 = is_unsigned ? _mm_packus_epi16(p16, p16) : _mm_packs_epi16(p16, p16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), p8);
  }
  requantize_scalar(acc, i, count, mult, mult_step, bias, bias_step, zy, range, out);
}

__attribute__((target("avx2"))) inline __m256i requantize8(__m256i a, __m256 m, __m256i zy, __m256i lo, __m256i hi) {
  const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), m);
  __m256 r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm256_max_ps(r, _mm256_set1_ps(-kClamp));  // NaN -> -2^23 (maxps returns the second operand)
  r = _mm256_min_ps(r, _mm256_set1_ps(kClamp));
  const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(r), zy);
  return _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
}

__attribute__((target("avx2"))) void requantize_avx2(const std::int32_t* acc, std::size_t count, const float* mult,
                                                      std::size_t mult_step, const std::int32_t* bias,
                                                      std::size_t bias_step, std::int32_t zy, quant::Range range,
                                                      std::uint8_t* out) {
  const __m256i z = _mm256_set1_epi32(zy);
  const __m256i lo = _mm256_set1_epi32(static_cast<std::int32_t>(range.lo));
  const __m256i hi = _mm256_set1_epi32(static_cast<std::int32_t>(range.hi));
  const bool is_unsigned = range.lo == 0;
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i));
    __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 8));
    if (bias != nullptr) {
      a0 = _mm256_add_epi32(a0, bias_step == 0 ? _mm256_set1_epi32(bias[0]) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + i)));
      a1 = _mm256_add_epi32(a1, bias_step == 0 ? _mm256_set1_epi32(bias[0]) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + i + 8)));
    }
    const __m256 m0 = mult_step == 0 ? _mm256_set1_ps(mult[0]) : _mm256_loadu_ps(mult + i);
    const __m256 m1 = mult_step == 0 ? _mm256_set1_ps(mult[0]) : _mm256_loadu_ps(mult + i + 8);
    const __m256i q0 = requantize8(a0, m0, z, lo, hi), q1 = requantize8(a1, m1, z, lo, hi);
    // packs work per 128-bit lane: [q0.lo q1.lo | q0.hi q1.hi], put back in order by the permute.
    const __m256i p16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xD8);
    const __m128i l = _mm256_castsi256_si128(p16), h = _mm256_extracti128_si256(p16, 1);
    const __m128i p8 = is_unsigned ? _mm_packus_epi16(l, h) : _mm_packs_epi16(l, h);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), p8);
  }
  requantize_scalar(acc, i, count, mult, mult_step, bias, bias_step, zy, range, out);
}
#endif

}  // namespace

void requantize_bytes(const std::int32_t* acc, std::size_t count, const float* mult, std::size_t mult_step,
                      const std::int32_t* bias, std::size_t bias_step, std::int32_t zy, quant::Range range,
                      std::uint8_t* out, Isa isa) {
#if defined(__x86_64__)
  if (isa == Isa::Avx2 || isa == Isa::Avx512) {
    requantize_avx2(acc, count, mult, mult_step, bias, bias_step, zy, range, out);
    return;
  }
  if (isa == Isa::Sse) {
    requantize_sse(acc, count, mult, mult_step, bias, bias_step, zy, range, out);
    return;
  }
#endif
  (void)isa;
  requantize_scalar(acc, 0, count, mult, mult_step, bias, bias_step, zy, range, out);
}

}  // namespace onemodel::opt
