// TreeEnsemble's post_transform (spec/ops/ml.md section 3.1): applied to one row of aggregated
// scores, in the row's type T (float or double), with the exact exponential and logarithm
// (spec/exact-transcendentals.md sections 2, 4 and 15), so every platform gives the same bits.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"

namespace onemodel::tree_post {

enum class Transform { none = 0, softmax = 1, logistic = 2, softmax_zero = 3, probit = 4 };

inline float exp_t(float x) noexcept { return exact::exp(x); }
inline double exp_t(double x) noexcept { return exact::exp_f64(x); }

// Section 3.1 LOGISTIC: the exact sigmoid (binary32: exact-transcendentals.md section 4; binary64:
// section 15.4's steps).
inline float logistic(float x) noexcept { return exact::sigmoid(x); }
inline double logistic(double x) noexcept {
  const double s = exact::exp_f64(0.0 - std::fabs(x));
  const double num = x >= 0.0 ? 1.0 : s;
  return num / (1.0 + s);
}

// Section 3.1 PROBIT: sqrt(2) * erf_inv(2p - 1) with erf_inv the closed-form approximation of the
// ONNX ML common definition (Winitzki's, a = 0.147), every step in binary64 in the order written,
// log by exact::log_f64, sqrt IEEE; rounded once to T.
inline double probit(double p) noexcept {
  const double x0 = p * 2.0 - 1.0;
  const double sgn = x0 < 0.0 ? -1.0 : 1.0;
  const double x = (1.0 - x0) * (1.0 + x0);
  if (x == 0.0) return 0.0;
  const double l = exact::log_f64(x);
  const double pi = 3.141592653589793;
  const double v = 2.0 / (pi * 0.147) + 0.5 * l;
  const double v2 = 1.0 / 0.147 * l;
  const double v3 = -v + std::sqrt(v * v - v2);
  return 1.41421356 * (sgn * std::sqrt(v3));
}

template <class T>
void apply(Transform t, std::span<T> row) noexcept {
  switch (t) {
    case Transform::none: return;
    case Transform::logistic:
      for (T& v : row) v = logistic(v);
      return;
    case Transform::probit:
      for (T& v : row) v = static_cast<T>(probit(static_cast<double>(v)));
      return;
    case Transform::softmax:
    case Transform::softmax_zero: {
      // m = the largest score (the first NaN wins: every comparison with it is false).
      T m = row[0];
      for (T v : row) m = v > m ? v : m;
      T sum = T{0};
      if (t == Transform::softmax) {
        for (T& v : row) {
          v = exp_t(v - m);
          sum = sum + v;
        }
      } else {
        // SOFTMAX_ZERO: a score within 1e-7 of zero is scaled by exp(-m) instead (ONNX ML's
        // definition, which keeps zeros at zero); a row summing to 0 becomes 0.5 everywhere.
        const T scale = exp_t(T{0} - m);
        const T tiny = static_cast<T>(0.0000001);
        for (T& v : row) {
          v = (v > tiny || v < -tiny) ? exp_t(v - m) : v * scale;
          sum = sum + v;
        }
        if (sum == T{0}) {
          for (T& v : row) v = static_cast<T>(0.5);
          return;
        }
      }
      for (T& v : row) v = v / sum;
      return;
    }
  }
}

}  // namespace onemodel::tree_post
