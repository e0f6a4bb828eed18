// ulp_table: the error of the exact fp32 transcendentals (reference/math/) in float32 ulps, over
// the sweeps of the table in spec/exact-transcendentals.md section "Measured error": every float of
// each hot range (stride 1) and every 67th float of each wide range. Writes a markdown table.
//
// Usage: ulp_table <output.md> [--threads N] [--hot-stride S] [--wide-stride S]
//
// Error of a result y at x: |y - f(x)| / spacing, the spacing being the float32 spacing at the
// correctly rounded f(x). Thirteen billion points cannot all be sent through MPFR in reasonable
// time, so every point is measured against a double-precision reference (libm in double, about
// 1e-16 relative, i.e. about 1e-8 float ulps), and MPFR (64-bit, tests/support/mpfr_reference.hpp)
// is used (a) to recompute the error at each row's maximum, which is what the table prints, and
// (b) on every 4099th point of every row, where the largest difference between the double-based
// and the MPFR-based error is reported: it bounds how far the mean and the choice of the maximum
// can be from a full MPFR sweep.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "reference/math/exact_math.hpp"
#include "tests/support/mpfr_reference.hpp"
#include "tools/ulp_common/ulp_common.hpp"

namespace {

using onemodel::testing::MathFunction;
using onemodel::testing::MpfrReference;
using onemodel::ulp_tools::bits_of;
using onemodel::ulp_tools::float_from_bits;

// Floats in increasing order as integers: +0 and -0 are the same point (key 0).
std::int64_t key_of(float x) {
  const std::uint32_t u = bits_of(x);
  return (u & 0x80000000u) ? -static_cast<std::int64_t>(u & 0x7FFFFFFFu) : static_cast<std::int64_t>(u);
}

float float_of_key(std::int64_t k) {
  return k >= 0 ? float_from_bits(static_cast<std::uint32_t>(k))
                : float_from_bits(0x80000000u | static_cast<std::uint32_t>(-k));
}

float ours(MathFunction f, float x) {
  namespace ex = onemodel::exact;
  switch (f) {
    case MathFunction::exp: return ex::exp(x);
    case MathFunction::log: return ex::log(x);
    case MathFunction::sigmoid: return ex::sigmoid(x);
    case MathFunction::tanh: return ex::tanh(x);
    case MathFunction::erf: return ex::erf(x);
    case MathFunction::one_plus_erf: return ex::one_plus_erf(x);
    case MathFunction::gelu_erf: return ex::gelu_erf(x);
    case MathFunction::gelu_tanh: return ex::gelu_tanh(x);
  }
  return 0;
}

// The double-precision reference, arranged without cancellation (as the MPFR one).
double reference_double(MathFunction f, float xf) {
  const double x = xf;
  switch (f) {
    case MathFunction::exp: return std::exp(x);
    case MathFunction::log: return std::log(x);
    case MathFunction::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case MathFunction::tanh: return std::tanh(x);
    case MathFunction::erf: return std::erf(x);
    case MathFunction::one_plus_erf: return std::erfc(-x);
    case MathFunction::gelu_erf: return 0.5 * x * std::erfc(-x / std::numbers::sqrt2);
    case MathFunction::gelu_tanh: {
      const double u = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * (x * x * x));
      return x / (1.0 + std::exp(-2.0 * u));
    }
  }
  return 0;
}

double error_against_double(float got, double ref) {
  const float rounded = static_cast<float>(ref);
  if (std::isinf(got) || std::isnan(got)) {
    return (std::isinf(got) && got == rounded) ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return std::ldexp(std::fabs(static_cast<double>(got) - ref),
                    -MpfrReference::spacing_exponent(rounded));
}

struct Row {
  const char* function;
  MathFunction f;
  const char* range;
  float lo, hi;
  bool hot;  // stride 1 (hot) or the wide stride
};

constexpr float kFltMax = std::numeric_limits<float>::max();

// The exact-variant rows of the table in spec/exact-transcendentals.md, in its order.
const Row kRows[] = {
    {"exp", MathFunction::exp, "hot [-16, 16]", -16, 16, true},
    {"exp", MathFunction::exp, "wide [-110, 90]", -110, 90, false},
    {"log", MathFunction::log, "hot [0.0625, 16]", 0.0625f, 16, true},
    {"log", MathFunction::log, "wide [0, FLT_MAX]", 0, kFltMax, false},
    {"tanh", MathFunction::tanh, "hot [-10, 10]", -10, 10, true},
    {"tanh", MathFunction::tanh, "wide [-50, 50]", -50, 50, false},
    {"erf", MathFunction::erf, "hot [-6, 6]", -6, 6, true},
    {"erf", MathFunction::erf, "wide [-10, 10]", -10, 10, false},
    {"sigmoid", MathFunction::sigmoid, "hot [-16, 16]", -16, 16, true},
    {"sigmoid", MathFunction::sigmoid, "wide [-110, 90]", -110, 90, false},
    {"gelu_erf", MathFunction::gelu_erf, "hot [-3, 10]", -3, 10, true},
    {"gelu_tanh", MathFunction::gelu_tanh, "hot [-3, 10]", -3, 10, true},
    {"gelu_erf", MathFunction::gelu_erf, "negative tail [-6, -3]", -6, -3, true},
    {"gelu_erf", MathFunction::gelu_erf, "negative tail [-12, -6]", -12, -6, true},
    {"gelu_tanh", MathFunction::gelu_tanh, "negative tail [-6, -3]", -6, -3, true},
    {"gelu_tanh", MathFunction::gelu_tanh, "negative tail [-12, -6]", -12, -6, true},
    // Not in the source table: 1 + erf as used by the erf form of GELU.
    {"one_plus_erf", MathFunction::one_plus_erf, "wide [-10, 10]", -10, 10, false},
};

struct Partial {
  double max_ulp = -1;
  std::int64_t max_key = 0;
  double sum = 0;
  std::uint64_t points = 0;
};

// Larger error wins; on a tie the smaller key, so the result does not depend on the threads.
void merge(Partial& into, const Partial& p) {
  if (p.max_ulp > into.max_ulp || (p.max_ulp == into.max_ulp && p.max_key < into.max_key)) {
    into.max_ulp = p.max_ulp;
    into.max_key = p.max_key;
  }
  into.sum += p.sum;
  into.points += p.points;
}

Partial sweep_chunk(MathFunction f, std::int64_t first_key, std::int64_t stride, std::uint64_t begin,
                    std::uint64_t end) {
  Partial p;
  for (std::uint64_t i = begin; i < end; ++i) {
    const std::int64_t k = first_key + static_cast<std::int64_t>(i) * stride;
    const float x = float_of_key(k);
    const double e = error_against_double(ours(f, x), reference_double(f, x));
    p.sum += e;
    ++p.points;
    if (e > p.max_ulp) {
      p.max_ulp = e;
      p.max_key = k;
    }
  }
  return p;
}

struct Measured {
  Partial total;
  double max_ulp_mpfr;      // MPFR error at the maximum found
  double reference_check;   // max |double-based - MPFR-based| over every 4099th point
  std::uint64_t checked;
  double seconds;
};

Measured measure(const Row& row, std::int64_t stride, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t first = key_of(row.lo), last = key_of(row.hi);
  const std::uint64_t count = static_cast<std::uint64_t>((last - first) / stride) + 1;
  const std::vector<Partial> parts = onemodel::ulp_tools::run_in_threads<Partial>(threads, [&](unsigned t) {
    return sweep_chunk(row.f, first, stride, count * t / threads, count * (t + 1) / threads);
  });
  Measured m{};
  for (const Partial& p : parts) merge(m.total, p);

  MpfrReference ref;
  const float at = float_of_key(m.total.max_key);
  ref.evaluate(row.f, at);
  m.max_ulp_mpfr = ref.ulp_error(ours(row.f, at));
  for (std::uint64_t i = 0; i < count; i += 4099) {
    const float x = float_of_key(first + static_cast<std::int64_t>(i) * stride);
    const float got = ours(row.f, x);
    ref.evaluate(row.f, x);
    const double by_mpfr = ref.ulp_error(got);
    const double by_double = error_against_double(got, reference_double(row.f, x));
    if (by_mpfr != by_double) {  // both infinite compares equal
      m.reference_check = std::max(m.reference_check, std::fabs(by_mpfr - by_double));
    }
    ++m.checked;
  }
  m.seconds = onemodel::ulp_tools::seconds_since(start);
  return m;
}

// ExpNonPositive equals exp bit for bit on [-87.33654, 0]: every float of the range.
std::uint64_t exp_non_positive_mismatches(std::uint64_t& points) {
  std::uint64_t bad = 0;
  points = 0;
  for (std::uint64_t u = 0x80000000u; u <= bits_of(-87.33654f); ++u) {
    const float x = float_from_bits(static_cast<std::uint32_t>(u));
    bad += bits_of(onemodel::exact::exp_non_positive(x)) != bits_of(onemodel::exact::exp(x));
    ++points;
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <output.md> [--threads N] [--hot-stride S] [--wide-stride S]\n", argv[0]);
    return 2;
  }
  unsigned threads = 2;
  std::int64_t hot_stride = 1, wide_stride = 67;
  const bool options_read = onemodel::ulp_tools::read_positive_options(argc, argv, [&](const std::string& opt, long long v) {
    if (opt == "--threads") threads = static_cast<unsigned>(v);
    else if (opt == "--hot-stride") hot_stride = v;
    else if (opt == "--wide-stride") wide_stride = v;
    else return false;
    return true;
  });
  if (!options_read) return 2;

  const auto start = std::chrono::steady_clock::now();
  std::string table =
      "| function | range | stride | points | max ulp | at x | mean ulp | double vs MPFR (ulp) | seconds |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& row : kRows) {
    const std::int64_t stride = row.hot ? hot_stride : wide_stride;
    const Measured m = measure(row, stride, threads);
    char line[512];
    std::snprintf(line, sizeof line, "| %s | %s | %lld | %llu | %.3f | %.9g | %.4f | %.1e | %.0f |\n",
                  row.function, row.range, static_cast<long long>(stride),
                  static_cast<unsigned long long>(m.total.points), m.max_ulp_mpfr,
                  static_cast<double>(float_of_key(m.total.max_key)),
                  m.total.sum / static_cast<double>(m.total.points), m.reference_check, m.seconds);
    onemodel::ulp_tools::emit_row(table, line);
  }
  std::uint64_t enp_points = 0;
  const std::uint64_t enp_bad = exp_non_positive_mismatches(enp_points);
  const double total = onemodel::ulp_tools::seconds_since(start);

  std::string doc =
      "# Exact transcendentals: measured error in ulps\n\n"
      "Generated by `tools/ulp_table/main.cpp` (`ulp_table docs/transcendentals-ulp.md`, Release build); "
      "do not edit by hand. The functions are those of `reference/math/` "
      "(`spec/exact-transcendentals.md`); the sweeps are the exact-variant rows of the table in "
      "the source page's section \"Measured error\", plus `one_plus_erf`.\n\n"
      "Error at x: `|got - f(x)| / spacing`, where `f(x)` is the mathematical function at the float "
      "input and the spacing is the float32 spacing at the correctly rounded `f(x)` (2^-149 for zero "
      "and subnormals). Points walk the floats in order (+0 and -0 are one point) from the low end "
      "with the given stride. Every point is measured against a double-precision reference (libm "
      "in double); **max ulp** is recomputed with MPFR (64-bit precision, correctly rounded "
      "primitives, `tests/support/mpfr_reference.hpp`) at the maximum, and the column "
      "*double vs MPFR* is the largest difference between the double-based and the MPFR-based "
      "error over every 4099th point of the row (the MPFR check of the reference).\n\n" +
      table + "\n";
  char tail[512];
  std::snprintf(tail, sizeof tail,
                "`exp_non_positive` equals `exp` bit for bit on every float of [-87.33654, 0]: "
                "%llu values, %llu mismatches.\n\n"
                "Hot stride %lld, wide stride %lld, %u threads; total %.0f s.\n",
                static_cast<unsigned long long>(enp_points), static_cast<unsigned long long>(enp_bad),
                static_cast<long long>(hot_stride), static_cast<long long>(wide_stride), threads, total);
  doc += tail;
  // The pow section at the end of the file is written by tools/pow_ulp; keep it.
  {
    std::ifstream old(argv[1], std::ios::binary);
    const std::string previous((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>());
    const std::size_t at = previous.find("<!-- pow_ulp:");
    if (at != std::string::npos) doc += "\n" + previous.substr(at);
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << doc;
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::fputs(tail, stdout);
  return enp_bad == 0 ? 0 : 1;
}
