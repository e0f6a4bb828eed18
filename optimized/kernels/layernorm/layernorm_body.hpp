// LayerNormalization (and RMSNormalization) rows on any lanes type (ops-norms.md,
// "LayerNormalization, RMSNormalization"), the order of reference/ops/norm_helpers.cpp:
//   1. mean = Sum16(x) / n            (rms: mean = +0)
//   2. v = Sum16((x - mean)^2) / n    (difference and square rounded separately)
//   3. inv = 1 / sqrt(v + epsilon)
//   4. y = (((x - mean) * inv) * scale) + bias, four rounded operations (no bias: no addition).
// No fused multiply-add in either mode (the fast flavour is the same code); NaN stored canonical.
// Included by per-ISA kernel files only.
#pragma once

#include <cstddef>

#include "optimized/kernels/layernorm/layernorm.hpp"
#include "optimized/kernels/reduce/sum16_body.hpp"
#include "optimized/kernels/vexp/exp_lanes.hpp"

namespace onemodel::opt::layernorm {

template <class L>
inline void normalize_with_rows(const LayerNormArgs& a, std::size_t r, const float* x, float* y, float mean, float inv,
                                typename L::F mv, typename L::F iv) noexcept;

template <class L>
inline void normalize_row(const LayerNormArgs& a, std::size_t r) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const std::size_t n = a.cols;
  const float* x = a.x + r * n;
  float* y = a.y + r * n;
  const float count = static_cast<float>(n);
  float mean = 0.0f;
  if (!a.rms) mean = reduce::sum16_array<L>(x, n) / count;
  const typename L::F mv = L::set1(mean);
  // The padded terms of the last group are zeroed inside sum16_terms after the term is applied.
  const float v = reduce::sum16_terms<L>(x, n, [&](typename L::F t) {
                    const typename L::F d = L::sub(t, mv);
                    return L::mul(d, d);
                  }) /
                  count;
  const float inv = 1.0f / __builtin_sqrtf(v + a.epsilon);
  const typename L::F iv = L::set1(inv);
  if (a.param_channels != 0) {
    // One scale and bias for the whole row (InstanceNormalization): the same four operations.
    const float s = a.scale[r % a.param_channels];
    const bool has_bias = a.bias != nullptr;
    const float b = has_bias ? a.bias[r % a.param_channels] : 0.0f;
    const typename L::F sv = L::set1(s), bv = L::set1(b);
    std::size_t j = 0;
    for (; j + W <= n; j += W) {
      typename L::F out = L::mul(L::mul(L::sub(L::load(x + j), mv), iv), sv);
      if (has_bias) out = L::add(out, bv);
      L::store(y + j, vexp::canonical_nan<L>(out));
    }
    for (; j < n; ++j) {
      float out = ((x[j] - mean) * inv) * s;
      if (has_bias) out = out + b;
      y[j] = out != out ? __builtin_nanf("") : out;
    }
  } else {
    normalize_with_rows<L>(a, r, x, y, mean, inv, mv, iv);
  }
  if (a.mean != nullptr) a.mean[r] = mean != mean ? __builtin_nanf("") : mean;
  if (a.inv_std_dev != nullptr) a.inv_std_dev[r] = inv != inv ? __builtin_nanf("") : inv;
}

// Step 4 with scale and bias rows of cols values (LayerNormalization, RMSNormalization).
template <class L>
inline void normalize_with_rows(const LayerNormArgs& a, std::size_t r, const float* x, float* y, float mean, float inv,
                                typename L::F mv, typename L::F iv) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const std::size_t n = a.cols;
  const float* scale = a.scale + r * a.scale_row_stride;
  const float* bias = a.bias != nullptr ? a.bias + r * a.bias_row_stride : nullptr;
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    typename L::F out = L::mul(L::mul(L::sub(L::load(x + j), mv), iv), L::load(scale + j));
    if (bias != nullptr) out = L::add(out, L::load(bias + j));
    L::store(y + j, vexp::canonical_nan<L>(out));
  }
  for (; j < n; ++j) {
    float out = ((x[j] - mean) * inv) * scale[j];
    if (bias != nullptr) out = out + bias[j];
    y[j] = out != out ? __builtin_nanf("") : out;
  }
}

}  // namespace onemodel::opt::layernorm
