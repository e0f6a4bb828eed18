// The channel-blocked kernels of fast mode (optimized/kernels/nchwc/nchwc.hpp), on the AVX-512
// path (the only one that has them; the tests are skipped, and say so, on a machine without it):
//  - the 1x1 kernel in all four layouts (blocked or [N, C, H, W] input and output) and the
//    depthwise kernel with a blocked input and either output, against a naive double sum over the
//    text's definition (spec/ops/products-conv.md: y = bias + sum of w * x, padding read as +0):
//    every output within k*u*sum|w*x| + 1e-30 of it, with channel counts off the block of 16, maps
//    of 1 x 1 to 56 x 56 (positions off the register tile of 12), batches, strides, asymmetric
//    pads, dilation, 3x3, 5x5 and a 1 x 7 window; both depthwise ways of reaching the borders
//    (the windows read in place, and the zero-bordered copy) on the same case;
//  - the same bits at 1 and 2 threads, with the second thread shown to run;
//  - the padding lanes of a blocked output hold +0 (no stale value, subnormal or NaN for a later
//    layer to load), and nothing past the output is written;
//  - the epilogue: the residual then the activation give the bits of the element-wise kernels
//    applied to the plain result (one rounded addition, then the activation), in the stores
//    (Relu) and after them (Sigmoid), either operand order;
//  - an infinite depthwise weight meets the padding as a real product (+0 * inf is NaN): exactly
//    the border outputs whose window reaches the padding under it are NaN;
//  - the squeeze-and-excitation pair: the blocked global average within the bound of the naive
//    mean, and the product by a per-channel factor the exact float32 product (one rounding), with
//    the padding lanes +0, nothing past the output written, and the same bits at 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"
#include "tests/kernels/conv_test_support.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::opt {
namespace {

#if defined(__x86_64__)
constexpr std::size_t kB = nchwc::kBlock;
constexpr float kSentinel = 777.0f;

using conv_test::bits;

bool has_avx512() {
  const auto isas = available_isas();
  return std::find(isas.begin(), isas.end(), Isa::Avx512) != isas.end();
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// [N, C, P] (P positions) into [N, ceil(C / 16), P, 16] with `pad` in the padding lanes.
std::vector<float> to_blocked(const std::vector<float>& plain, std::size_t n, std::size_t c, std::size_t p, float pad) {
  const std::size_t cb = nchwc::blocks_of(c);
  std::vector<float> out(n * cb * p * kB, pad);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t ch = 0; ch < c; ++ch) {
      for (std::size_t q = 0; q < p; ++q) out[((i * cb + ch / kB) * p + q) * kB + ch % kB] = plain[(i * c + ch) * p + q];
    }
  }
  return out;
}

// Element (n, c, q) of a tensor in either layout.
float at(const std::vector<float>& t, bool blocked, std::size_t c_total, std::size_t p, std::size_t n, std::size_t c,
         std::size_t q) {
  if (!blocked) return t[(n * c_total + c) * p + q];
  return t[((n * nchwc::blocks_of(c_total) + c / kB) * p + q) * kB + c % kB];
}

// "" when every output is within the bound of `value` (NaN where `value` is NaN), else the first
// miss.
std::string within(const std::vector<float>& y, bool blocked, std::size_t n, std::size_t c, std::size_t p,
                   const std::vector<double>& value, const std::vector<double>& magnitude, double terms) {
  const double u = std::ldexp(1.0, -24);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t ch = 0; ch < c; ++ch) {
      for (std::size_t q = 0; q < p; ++q) {
        const std::size_t k = (i * c + ch) * p + q;
        const float got = at(y, blocked, c, p, i, ch, q);
        if (std::isnan(value[k]) ? !std::isnan(got) : !(std::fabs(got - value[k]) <= terms * u * magnitude[k] + 1e-30)) {
          return "n " + std::to_string(i) + " c " + std::to_string(ch) + " position " + std::to_string(q) + ": " +
                 std::to_string(got) + ", expected " + std::to_string(value[k]);
        }
      }
    }
  }
  return "";
}

// The padding lanes of a blocked output are +0 and the floats past it keep the sentinel.
std::string padding_and_tail(const std::vector<float>& y, std::size_t n, std::size_t c, std::size_t p, bool blocked) {
  const std::size_t size = blocked ? n * nchwc::blocks_of(c) * p * kB : n * c * p;
  for (std::size_t k = size; k < y.size(); ++k) {
    if (y[k] != kSentinel) return "float " + std::to_string(k) + " past the output was written";
  }
  if (!blocked) return "";
  for (std::size_t k = 0; k < size; ++k) {
    const std::size_t lane = k % kB, block = (k / (kB * p)) % nchwc::blocks_of(c);
    if (block * kB + lane >= c && bits(y[k]) != 0u) return "padding lane at float " + std::to_string(k) + " is not +0";
  }
  return "";
}

struct PointwiseCase {
  std::size_t n, cin, cout, plane;
};

struct PointwiseRun {
  bool in_blocked, out_blocked;
  const ConvActivation* activation = nullptr;
};

std::vector<float> run_pointwise(const PointwiseCase& g, const PointwiseRun& r, const std::vector<float>& x_plain,
                                 const std::vector<float>& w, const std::vector<float>& b, ThreadPool* pool) {
  const std::vector<float> x = r.in_blocked ? to_blocked(x_plain, g.n, g.cin, g.plane, 0.0f) : x_plain;
  const std::vector<float> packed = nchwc::pack_pointwise(w.data(), g.cout, g.cin);
  const std::vector<float> bias = nchwc::pack_bias(b.data(), g.cout);
  const std::size_t size = (r.out_blocked ? nchwc::blocks_of(g.cout) * kB : g.cout) * g.n * g.plane;
  std::vector<float> y(size + 64, kSentinel);
  nchwc::Pointwise job;
  job.batch = g.n;
  job.in_channels = g.cin;
  job.out_channels = g.cout;
  job.plane = g.plane;
  job.in_blocked = r.in_blocked;
  job.out_blocked = r.out_blocked;
  job.x = x.data();
  job.weights = packed.data();
  job.bias = bias.data();
  job.y = y.data();
  job.activation = r.activation;
  nchwc::pointwise_f32__avx512(KernelContext{Isa::Avx512, false, pool}, job);
  return y;
}

void naive_pointwise(const PointwiseCase& g, const std::vector<float>& x, const std::vector<float>& w,
                     const std::vector<float>& b, std::vector<double>& value, std::vector<double>& magnitude) {
  for (std::size_t n = 0; n < g.n; ++n) {
    for (std::size_t co = 0; co < g.cout; ++co) {
      for (std::size_t q = 0; q < g.plane; ++q) {
        double sum = b[co], mag = std::fabs(static_cast<double>(b[co]));
        for (std::size_t ci = 0; ci < g.cin; ++ci) {
          const double product = static_cast<double>(w[co * g.cin + ci]) * x[(n * g.cin + ci) * g.plane + q];
          sum += product;
          mag += std::fabs(product);
        }
        value.push_back(sum);
        magnitude.push_back(mag);
      }
    }
  }
}

std::vector<PointwiseCase> pointwise_cases() {
  return {{1, 16, 32, 49},  {2, 20, 40, 13}, {1, 96, 576, 196}, {1, 37, 24, 1},
          {1, 8, 200, 50},  {1, 320, 80, 7}, {2, 64, 16, 300},  {1, 1, 17, 25}};
}

TEST(NchwcPointwise, EveryLayoutWithinTheBoundThreadInvariantAndPaddingLanesZero) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  two_threads::RequireSharedCalls shared("NchwcPointwise.EveryLayoutWithinTheBoundThreadInvariantAndPaddingLanesZero");
  ThreadPool one(1), two(2, two_threads::kAlways);
  std::uint32_t seed = 1;
  for (const PointwiseCase& g : pointwise_cases()) {
    const std::vector<float> x = random_values(g.n * g.cin * g.plane, ++seed, 2.0f);
    const std::vector<float> w = random_values(g.cout * g.cin, ++seed, 0.5f);
    const std::vector<float> b = random_values(g.cout, ++seed, 1.0f);
    std::vector<double> value, magnitude;
    naive_pointwise(g, x, w, b, value, magnitude);
    for (bool in_blocked : {false, true}) {
      for (bool out_blocked : {false, true}) {
        SCOPED_TRACE("N " + std::to_string(g.n) + " Cin " + std::to_string(g.cin) + " Cout " + std::to_string(g.cout) +
                     " plane " + std::to_string(g.plane) + (in_blocked ? " blocked in" : " plain in") +
                     (out_blocked ? " blocked out" : " plain out"));
        const PointwiseRun r{in_blocked, out_blocked};
        const std::vector<float> y1 = run_pointwise(g, r, x, w, b, &one);
        const std::vector<float> y2 = run_pointwise(g, r, x, w, b, &two);
        EXPECT_EQ(within(y1, out_blocked, g.n, g.cout, g.plane, value, magnitude, static_cast<double>(g.cin + 2)), "");
        EXPECT_EQ(padding_and_tail(y1, g.n, g.cout, g.plane, out_blocked), "");
        ASSERT_EQ(y1.size(), y2.size());
        for (std::size_t k = 0; k < y1.size(); ++k) ASSERT_EQ(bits(y1[k]), bits(y2[k])) << "float " << k;
      }
    }
  }
}

// A fast-mode activation (conv_test::store_activation) after the residual, if any.
ConvActivation epilogue(ew::UnaryOp op, const float* residual, bool residual_first) {
  ConvActivation a = conv_test::store_activation(op, 0.0f, 0.0f, true);
  a.residual = residual;
  a.residual_first = residual_first;
  return a;
}

TEST(NchwcPointwise, ResidualThenActivationGiveTheSeparateOperationsBits) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  ThreadPool one(1);
  const PointwiseCase g{2, 24, 40, 61};
  const std::vector<float> x = random_values(g.n * g.cin * g.plane, 5, 2.0f);
  const std::vector<float> w = random_values(g.cout * g.cin, 6, 0.5f);
  const std::vector<float> b = random_values(g.cout, 7, 1.0f);
  const std::vector<float> r_plain = random_values(g.n * g.cout * g.plane, 8, 3.0f);
  for (bool in_blocked : {false, true}) {
    for (bool out_blocked : {false, true}) {
      const std::vector<float> r = out_blocked ? to_blocked(r_plain, g.n, g.cout, g.plane, 0.0f) : r_plain;
      const std::vector<float> plain = run_pointwise(g, PointwiseRun{in_blocked, out_blocked}, x, w, b, &one);
      for (ew::UnaryOp op : {ew::UnaryOp::Relu, ew::UnaryOp::Sigmoid}) {
        for (bool first : {false, true}) {
          SCOPED_TRACE(std::string(in_blocked ? "blocked in" : "plain in") + (out_blocked ? ", blocked out" : ", plain out") +
                       (op == ew::UnaryOp::Relu ? ", Relu" : ", Sigmoid") + (first ? ", Add(r, y)" : ", Add(y, r)"));
          const ConvActivation a = epilogue(op, r.data(), first);
          const std::vector<float> fused = run_pointwise(g, PointwiseRun{in_blocked, out_blocked, &a}, x, w, b, &one);
          // The separate operations on the plain result: one rounded addition, then the activation.
          std::vector<float> expected = plain;
          const std::size_t size = (out_blocked ? nchwc::blocks_of(g.cout) * kB : g.cout) * g.n * g.plane;
          for (std::size_t k = 0; k < size; ++k) expected[k] = first ? r[k] + plain[k] : plain[k] + r[k];
          ew::UnaryArgs args;
          args.op = op;
          args.fast = true;
          ew::unary_f32_run(Isa::Avx512, args, expected.data(), expected.data(), size);
          for (std::size_t k = 0; k < size; ++k) {
            if (out_blocked && ((k / (kB * g.plane)) % nchwc::blocks_of(g.cout)) * kB + k % kB >= g.cout) continue;
            ASSERT_EQ(bits(fused[k]), bits(expected[k])) << "float " << k;
          }
        }
      }
    }
  }
}

// A depthwise layer: c channels over the window of conv_test::Window.
struct DepthwiseCase : conv_test::Window {
  std::size_t n = 1, c = 16;
  Conv2dShape shape() const { return conv_shape(n, c, c, c); }
  std::string describe() const {
    std::string out;
    const std::pair<const char*, std::size_t> parts[] = {{"N", n},   {" C", c},       {" in ", in_h}, {"x", in_w},
                                                         {" k", kh}, {"x", kw},       {" s", sh},     {"x", sw},
                                                         {" d", dh}, {"x", dw},       {" pads ", pt},  {",", pl},
                                                         {",", pb},  {",", pr}};
    for (const auto& [name, v] : parts) {
      out.append(name);
      out.append(std::to_string(v));
    }
    return out;
  }
};

// n, c, in_h, in_w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr.
DepthwiseCase depthwise_case(const std::size_t (&v)[14]) {
  DepthwiseCase g;
  g.n = v[0];
  g.c = v[1];
  g.in_h = v[2];
  g.in_w = v[3];
  g.kh = v[4];
  g.kw = v[5];
  g.sh = v[6];
  g.sw = v[7];
  g.dh = v[8];
  g.dw = v[9];
  g.pt = v[10];
  g.pl = v[11];
  g.pb = v[12];
  g.pr = v[13];
  return g;
}

std::vector<DepthwiseCase> depthwise_cases() {
  const std::size_t rows[][14] = {
      {1, 16, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {1, 20, 7, 7, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
      {2, 40, 14, 13, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0}, {1, 24, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 48, 28, 28, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2}, {1, 16, 9, 9, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
      {1, 33, 12, 15, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3}, {1, 17, 11, 11, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
      {1, 16, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   {1, 32, 112, 112, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
  };
  std::vector<DepthwiseCase> cases;
  for (const auto& row : rows) cases.push_back(depthwise_case(row));
  return cases;
}

void naive_depthwise(const DepthwiseCase& g, const std::vector<float>& x, const std::vector<float>& w,
                     const std::vector<float>& b, std::vector<double>& value, std::vector<double>& magnitude) {
  const Conv2dShape s = g.shape();
  for (std::size_t n = 0; n < g.n; ++n) {
    for (std::size_t c = 0; c < g.c; ++c) {
      for (std::size_t oy = 0; oy < s.out_h; ++oy) {
        for (std::size_t ox = 0; ox < s.out_w; ++ox) {
          double sum = 0.0, mag = 0.0;
          for (std::size_t ky = 0; ky < g.kh; ++ky) {
            for (std::size_t kx = 0; kx < g.kw; ++kx) {
              const long iy = static_cast<long>(oy * g.sh + ky * g.dh) - static_cast<long>(g.pt);
              const long ix = static_cast<long>(ox * g.sw + kx * g.dw) - static_cast<long>(g.pl);
              const bool inside = iy >= 0 && iy < static_cast<long>(g.in_h) && ix >= 0 && ix < static_cast<long>(g.in_w);
              // Padding reads +0: a real product, NaN for an infinite weight.
              const double xv = inside ? x[((n * g.c + c) * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                           static_cast<std::size_t>(ix)]
                                       : 0.0;
              const double product = static_cast<double>(w[(c * g.kh + ky) * g.kw + kx]) * xv;
              sum += product;
              mag += std::isnan(product) ? 0.0 : std::fabs(product);
            }
          }
          sum += b[c];
          mag += std::fabs(static_cast<double>(b[c]));
          value.push_back(sum);
          magnitude.push_back(mag);
        }
      }
    }
  }
}

std::vector<float> run_depthwise(const DepthwiseCase& g, bool out_blocked, bool finite, const std::vector<float>& x_plain,
                                 const std::vector<float>& w, const std::vector<float>& b, ThreadPool* pool,
                                 const ConvActivation* activation = nullptr) {
  const Conv2dShape s = g.shape();
  const std::vector<float> x = to_blocked(x_plain, g.n, g.c, s.in_plane(), 0.0f);
  const std::vector<float> packed = nchwc::pack_depthwise(w.data(), g.c, s.taps());
  const std::vector<float> bias = nchwc::pack_bias(b.data(), g.c);
  const std::size_t size = (out_blocked ? nchwc::blocks_of(g.c) * kB : g.c) * g.n * s.out_plane();
  std::vector<float> y(size + 64, kSentinel);
  nchwc::Depthwise job;
  job.shape = s;
  job.out_blocked = out_blocked;
  job.x = x.data();
  job.weights = packed.data();
  job.bias = bias.data();
  job.y = y.data();
  job.activation = activation;
  job.finite_weights = finite;
  nchwc::depthwise_f32__avx512(KernelContext{Isa::Avx512, false, pool}, job);
  return y;
}

TEST(NchwcDepthwise, BothBorderWaysWithinTheBoundThreadInvariantAndPaddingLanesZero) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  two_threads::RequireSharedCalls shared("NchwcDepthwise.BothBorderWaysWithinTheBoundThreadInvariantAndPaddingLanesZero");
  ThreadPool one(1), two(2, two_threads::kAlways);
  std::uint32_t seed = 100;
  for (const DepthwiseCase& g : depthwise_cases()) {
    const Conv2dShape s = g.shape();
    const std::vector<float> x = random_values(g.n * g.c * s.in_plane(), ++seed, 2.0f);
    const std::vector<float> w = random_values(g.c * s.taps(), ++seed, 0.5f);
    const std::vector<float> b = random_values(g.c, ++seed, 1.0f);
    std::vector<double> value, magnitude;
    naive_depthwise(g, x, w, b, value, magnitude);
    // The finite flag only chooses how borders are reached (in place where most windows lie
    // inside, else the bordered copy); with finite weights both give the same sums.
    for (bool finite : {true, false}) {
      for (bool out_blocked : {false, true}) {
        SCOPED_TRACE(g.describe() + (finite ? " in place" : " bordered copy") + (out_blocked ? " blocked out" : " plain out"));
        const std::vector<float> y1 = run_depthwise(g, out_blocked, finite, x, w, b, &one);
        const std::vector<float> y2 = run_depthwise(g, out_blocked, finite, x, w, b, &two);
        EXPECT_EQ(within(y1, out_blocked, g.n, g.c, s.out_plane(), value, magnitude, static_cast<double>(s.taps() + 2)), "");
        EXPECT_EQ(padding_and_tail(y1, g.n, g.c, s.out_plane(), out_blocked), "");
        ASSERT_EQ(y1.size(), y2.size());
        for (std::size_t k = 0; k < y1.size(); ++k) ASSERT_EQ(bits(y1[k]), bits(y2[k])) << "float " << k;
      }
    }
  }
}

TEST(NchwcDepthwise, ActivationGivesTheElementwiseKernelsBits) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  ThreadPool one(1);
  const DepthwiseCase g = depthwise_case({1, 40, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  const Conv2dShape s = g.shape();
  const std::vector<float> x = random_values(g.c * s.in_plane(), 41, 2.0f);
  const std::vector<float> w = random_values(g.c * s.taps(), 42, 0.5f);
  const std::vector<float> b = random_values(g.c, 43, 1.0f);
  for (bool out_blocked : {false, true}) {
    const std::vector<float> plain = run_depthwise(g, out_blocked, true, x, w, b, &one);
    for (ew::UnaryOp op : {ew::UnaryOp::Relu, ew::UnaryOp::HardSwish, ew::UnaryOp::Sigmoid}) {
      SCOPED_TRACE(std::string(out_blocked ? "blocked out, op " : "plain out, op ") + std::to_string(static_cast<int>(op)));
      const ConvActivation a = epilogue(op, nullptr, false);
      const std::vector<float> fused = run_depthwise(g, out_blocked, true, x, w, b, &one, &a);
      std::vector<float> expected = plain;
      const std::size_t size = (out_blocked ? nchwc::blocks_of(g.c) * kB : g.c) * s.out_plane();
      ew::UnaryArgs args;
      args.op = op;
      args.fast = true;
      ew::unary_f32_run(Isa::Avx512, args, expected.data(), expected.data(), size);
      for (std::size_t k = 0; k < size; ++k) {
        if (out_blocked && ((k / (kB * s.out_plane())) % nchwc::blocks_of(g.c)) * kB + k % kB >= g.c) continue;
        ASSERT_EQ(bits(fused[k]), bits(expected[k])) << "float " << k;
      }
    }
  }
}

TEST(NchwcDepthwise, InfiniteWeightMeetsThePaddingAsARealProduct) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  ThreadPool one(1);
  const DepthwiseCase g = depthwise_case({1, 20, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  const Conv2dShape s = g.shape();
  const std::vector<float> x = random_values(g.c * s.in_plane(), 51, 2.0f);
  std::vector<float> w = random_values(g.c * s.taps(), 52, 0.5f);
  const std::vector<float> b = random_values(g.c, 53, 1.0f);
  w[3 * s.taps() + 0] = std::numeric_limits<float>::infinity();  // channel 3, top-left tap
  std::vector<double> value, magnitude;
  naive_depthwise(g, x, w, b, value, magnitude);
  std::size_t nan_outputs = 0;
  for (double v : value) nan_outputs += std::isnan(v) ? 1u : 0u;
  ASSERT_GT(nan_outputs, 0u);  // the first row and column of channel 3
  for (bool out_blocked : {false, true}) {
    SCOPED_TRACE(out_blocked ? "blocked out" : "plain out");
    // Weights not all finite: the kernel is told so, and must reach the padding as products.
    const std::vector<float> y = run_depthwise(g, out_blocked, false, x, w, b, &one);
    for (std::size_t c = 0; c < g.c; ++c) {
      for (std::size_t q = 0; q < s.out_plane(); ++q) {
        const double v = value[c * s.out_plane() + q];
        const float got = at(y, out_blocked, g.c, s.out_plane(), 0, c, q);
        // Inside outputs meet inf * x (an infinity of x's sign) or NaN: compare NaN-ness, and
        // finite values by the bound.
        if (std::isnan(v)) {
          ASSERT_TRUE(std::isnan(got)) << "channel " << c << " position " << q;
        } else if (std::isinf(v)) {
          ASSERT_EQ(got, static_cast<float>(v)) << "channel " << c << " position " << q;
        } else {
          ASSERT_NEAR(got, v, 11 * std::ldexp(1.0, -24) * magnitude[c * s.out_plane() + q] + 1e-30);
        }
      }
    }
  }
}

TEST(NchwcSqueezeExcitation, PoolWithinTheBoundScaleExactPaddingZeroThreadInvariant) {
  if (!has_avx512()) GTEST_SKIP() << "no AVX-512 on this machine: the blocked kernels exist on that path only";
  two_threads::RequireSharedCalls shared("NchwcSqueezeExcitation.PoolWithinTheBoundScaleExactPaddingZeroThreadInvariant");
  ThreadPool one(1), two(2, two_threads::kAlways);
  struct Case {
    std::size_t n, c, plane;
  };
  const Case cases[] = {{1, 16, 49}, {2, 40, 3}, {1, 1152, 49}, {1, 33, 3136}, {3, 17, 1}};
  std::uint32_t seed = 200;
  for (const Case& g : cases) {
    SCOPED_TRACE("N " + std::to_string(g.n) + " C " + std::to_string(g.c) + " plane " + std::to_string(g.plane));
    const std::vector<float> x_plain = random_values(g.n * g.c * g.plane, ++seed, 4.0f);
    const std::vector<float> x = to_blocked(x_plain, g.n, g.c, g.plane, 0.0f);
    const std::vector<float> factor = random_values(g.n * g.c, ++seed, 2.0f);
    std::vector<float> pooled[2], scaled[2];
    ThreadPool* pools[2] = {&one, &two};
    for (int t = 0; t < 2; ++t) {
      const KernelContext kc{Isa::Avx512, false, pools[t]};
      pooled[t].assign(g.n * g.c + 16, kSentinel);
      nchwc::global_average_pool_f32__avx512(kc, x.data(), g.n, g.c, g.plane, pooled[t].data());
      scaled[t].assign(x.size() + 64, kSentinel);
      nchwc::scale_f32__avx512(kc, x.data(), factor.data(), g.n, g.c, g.plane, scaled[t].data());
    }
    for (std::size_t k = 0; k < pooled[0].size(); ++k) ASSERT_EQ(bits(pooled[0][k]), bits(pooled[1][k])) << k;
    for (std::size_t k = 0; k < scaled[0].size(); ++k) ASSERT_EQ(bits(scaled[0][k]), bits(scaled[1][k])) << k;
    const double u = std::ldexp(1.0, -24);
    for (std::size_t i = 0; i < g.n; ++i) {
      for (std::size_t c = 0; c < g.c; ++c) {
        double sum = 0.0, mag = 0.0;
        for (std::size_t q = 0; q < g.plane; ++q) {
          const double v = x_plain[(i * g.c + c) * g.plane + q];
          sum += v;
          mag += std::fabs(v);
        }
        const double mean = sum / static_cast<double>(g.plane);
        const double bound = (static_cast<double>(g.plane) + 2) * u * mag / static_cast<double>(g.plane) + 1e-30;
        ASSERT_LE(std::fabs(pooled[0][i * g.c + c] - mean), bound) << "n " << i << " c " << c;
        for (std::size_t q = 0; q < g.plane; ++q) {
          const float want = x_plain[(i * g.c + c) * g.plane + q] * factor[i * g.c + c];
          ASSERT_EQ(bits(at(scaled[0], true, g.c, g.plane, i, c, q)), bits(want)) << "n " << i << " c " << c << " q " << q;
        }
      }
    }
    for (std::size_t k = g.n * g.c; k < pooled[0].size(); ++k) ASSERT_EQ(pooled[0][k], kSentinel) << k;
    EXPECT_EQ(padding_and_tail(scaled[0], g.n, g.c, g.plane, true), "");
  }
}

#else
// The blocked kernels are built for x86-64 (their AVX-512 file) only.
TEST(Nchwc, BuiltForX86Only) { GTEST_SKIP() << "the channel-blocked kernels exist on the x86-64 AVX-512 path only"; }
#endif

}  // namespace
}  // namespace onemodel::opt
