// Naive scalar definitions written from the normative text, independent of the kernels under
// test (which are vectorized templates): the expected values of the attention, softmax, reduce
// and layernorm kernel tests. Each follows its section literally, one element at a time.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/kernels/float_bits.hpp"

namespace attn_naive {

using onemodel::test::bits;
using onemodel::test::from_bits;
inline float canonical(float v) { return std::isnan(v) ? from_bits(0x7FC00000u) : v; }
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// exact-transcendentals.md, "exp(x)" steps 1-3 and ExpNonPositive.
inline float exp_non_positive(float x) {
  const float M = 12582912.0f;
  const float t = x * 1.44269502f + M;
  const float n = t - M;
  const std::uint32_t n_int = bits(t) - bits(M);
  const float r = (x - n * 0.693145751953125f) - n * 1.4286068e-6f;
  float q = 0.0013814613f * r + 0.00836871f;
  q = 0.04166839f + q * r;
  q = 0.16666521f + q * r;
  q = 0.49999994f + q * r;
  const float p = 1.0f + (r + (r * r) * q);
  float result = p * from_bits((n_int + 127u) << 23);
  if (x < -87.33654f) result = 0.0f;
  if (std::isnan(x)) result = from_bits(0x7FC00000u);
  return result;
}

// ops-norms.md, "The canonical sum".
inline float sum16(const std::vector<float>& t) {
  float P[16] = {};
  for (std::size_t j = 0; j < t.size(); ++j) P[j % 16] = P[j % 16] + t[j];
  float a[8], b[4], c[2];
  for (int i = 0; i < 8; ++i) a[i] = P[i] + P[i + 8];
  for (int i = 0; i < 4; ++i) b[i] = a[i] + a[i + 4];
  for (int i = 0; i < 2; ++i) c[i] = b[i] + b[i + 2];
  return c[0] + c[1];
}

// kernels-attention.md, "Softmax".
inline std::vector<float> softmax(const std::vector<float>& x) {
  float m = kNegInf;
  for (float v : x) if (v > m) m = v;
  std::vector<float> e(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) e[j] = exp_non_positive(x[j] - m);
  const float l = sum16(e);
  for (float& v : e) v = canonical(v / l);
  return e;
}

// ops-norms.md, LogSoftmax, with a given log function.
template <class Log>
std::vector<float> log_softmax(const std::vector<float>& x, Log log_fn) {
  float m = kNegInf;
  for (float v : x) if (v > m) m = v;
  std::vector<float> d(x.size()), e(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    d[j] = x[j] - m;
    e[j] = exp_non_positive(d[j]);
  }
  const float log_l = log_fn(sum16(e));
  for (float& v : d) v = canonical(v - log_l);
  return d;
}

// kernels-attention.md, "The exact definition", for one query row: q[d], keys and values as rows,
// mask row (empty: +0).
inline std::vector<float> attention_row(const float* q, const std::vector<const float*>& k,
                                        const std::vector<const float*>& v, const float* mask, std::size_t d,
                                        std::size_t dv, float scale) {
  float m = kNegInf, l = 0.0f;
  std::vector<float> acc(dv, 0.0f);
  const std::size_t kv = k.size();
  for (std::size_t kb = 0; kb < kv; kb += 64) {
    const std::size_t n = std::min<std::size_t>(64, kv - kb);
    std::vector<float> s(n), p(64, 0.0f);
    for (std::size_t j = 0; j < n; ++j) {
      float dot = 0.0f;
      for (std::size_t x = 0; x < d; ++x) dot = dot + q[x] * k[kb + j][x];
      s[j] = (mask != nullptr ? mask[kb + j] : 0.0f) + dot * scale;
    }
    float bm = kNegInf;
    for (float sv : s) if (sv > bm) bm = sv;
    const float m_new = std::max(m, bm);
    const float shift = m_new == kNegInf ? 0.0f : m_new;
    for (std::size_t j = 0; j < n; ++j) p[j] = exp_non_positive(s[j] - shift);
    const float bs = sum16(p);
    const float alpha = m == kNegInf ? 0.0f : m == shift ? 1.0f : exp_non_positive(m - shift);
    l = l * alpha + bs;
    for (float& a : acc) a = a * alpha;
    m = m_new;
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t x = 0; x < dv; ++x) acc[x] = acc[x] + p[j] * v[kb + j][x];
    }
  }
  for (float& a : acc) a = canonical(a / l);
  return acc;
}

// The same in double precision with a plain softmax (the accuracy yardstick of kernels-attention.md).
inline std::vector<double> attention_row_double(const float* q, const std::vector<const float*>& k,
                                                const std::vector<const float*>& v, const float* mask,
                                                std::size_t d, std::size_t dv, float scale) {
  std::vector<double> s(k.size());
  double m = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < k.size(); ++j) {
    double dot = 0.0;
    for (std::size_t x = 0; x < d; ++x) dot += static_cast<double>(q[x]) * k[j][x];
    s[j] = (mask != nullptr ? mask[j] : 0.0) + dot * scale;
    m = std::max(m, s[j]);
  }
  double l = 0.0;
  std::vector<double> out(dv, 0.0);
  for (std::size_t j = 0; j < k.size(); ++j) {
    const double p = std::exp(s[j] - m);
    l += p;
    for (std::size_t x = 0; x < dv; ++x) out[x] += p * v[j][x];
  }
  for (double& o : out) o /= l;
  return out;
}

}  // namespace attn_naive
