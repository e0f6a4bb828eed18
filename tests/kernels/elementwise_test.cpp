// The float32 element-wise kernels (optimized/kernels/elementwise/): every instruction-set path
// of this machine, at 1 and 2 threads, gives the bits of the scalar twin over every 4099th float32
// bit pattern plus special values (NaN, +-inf, +-0, subnormals); the scalar twin gives the bits of
// an independent oracle: the reference engine's exact functions (reference/math/, compiled into
// this test) and one-line formulas written from spec/ops/elementwise.md. Binary operations are
// checked against a naive NumPy broadcast over rapidcheck-generated shapes.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "reference/math/exact_math.hpp"
// The reference engine's exact functions, compiled here as the independent oracle (this test links
// only onemodel_kernels, which does not contain them).
#include "reference/math/exact_erf.cpp"
#include "reference/math/exact_exp.cpp"
#include "reference/math/exact_gelu.cpp"
// exact_log.cpp names two constants as exact_exp.cpp does (same values); renamed for this TU.
#define kLn2Hi kLn2HiOfLog
#define kLn2Lo kLn2LoOfLog
#include "reference/math/exact_log.cpp"
#undef kLn2Hi
#undef kLn2Lo
#include "reference/math/exact_sigmoid.cpp"
#include "reference/math/exact_tanh.cpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;
namespace ew = onemodel::opt::ew;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> ew_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(ew::variants()); }

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
float canonical(float v) { return v != v ? from_bits(0x7FC00000u) : v; }

// Every 4099th bit pattern, then special values; the length is not a multiple of any lane width
// so every path's tail runs too.
std::vector<float> sweep() {
  std::vector<float> v;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) v.push_back(from_bits(static_cast<std::uint32_t>(u)));
  const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                                    0x7F800001u, 0xFFBFFFFFu, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,
                                    0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u, 0xBF800000u,
                                    0x3F19999Au, 0x3F000000u, 0xBF000000u, 0x42B17217u, 0x42B17218u, 0xC2CFF1B4u,
                                    0xC2CFF1B5u, 0xC2AEAC4Fu, 0x42800000u, 0xC2800000u, 0x40400000u, 0xC0400000u};
  for (std::uint32_t s : specials) v.push_back(from_bits(s));
  // A dense walk through the interesting range [-12, 12].
  for (float x = -12.0f; x <= 12.0f; x += 0.0137f) v.push_back(x);
  v.push_back(1.5f);  // odd length
  return v;
}

// ew::UnaryOp::ErfGateChain's five operators one by one, each value stored canonical as its
// kernel stores it: Div(x, alpha), Erf, Add(., beta), Mul(x, .), Mul(., gamma).
float erf_gate_chain_oracle(float x, const ew::UnaryArgs& a) {
  const float y = canonical(x / a.alpha);
  const float e = onemodel::exact::erf(y);
  const float g = canonical(e + a.beta);
  const float m = canonical(x * g);
  return canonical(m * a.gamma);
}

struct UnaryCase {
  const char* name;
  ew::UnaryArgs args;
  float (*oracle)(float x, const ew::UnaryArgs& args);
};

// Oracles: spec/ops/elementwise.md sections 3, 6 and 8; spec/exact-transcendentals.md; the stored
// NaN is canonical (section 3).
const UnaryCase kUnaryCases[] = {
    {"Relu", {ew::UnaryOp::Relu}, [](float x, const ew::UnaryArgs&) { return canonical(x != x ? x : (x > 0 ? x : 0.0f)); }},
    {"Neg", {ew::UnaryOp::Neg}, [](float x, const ew::UnaryArgs&) { return canonical(-x); }},
    {"Abs", {ew::UnaryOp::Abs}, [](float x, const ew::UnaryArgs&) { return canonical(std::fabs(x)); }},
    {"Sqrt", {ew::UnaryOp::Sqrt}, [](float x, const ew::UnaryArgs&) { return canonical(std::sqrt(x)); }},
    {"Exp", {ew::UnaryOp::Exp}, [](float x, const ew::UnaryArgs&) { return onemodel::exact::exp(x); }},
    {"Log", {ew::UnaryOp::Log}, [](float x, const ew::UnaryArgs&) { return onemodel::exact::log(x); }},
    {"Tanh", {ew::UnaryOp::Tanh}, [](float x, const ew::UnaryArgs&) { return onemodel::exact::tanh(x); }},
    {"Sigmoid", {ew::UnaryOp::Sigmoid}, [](float x, const ew::UnaryArgs&) { return onemodel::exact::sigmoid(x); }},
    {"Erf", {ew::UnaryOp::Erf}, [](float x, const ew::UnaryArgs&) { return onemodel::exact::erf(x); }},
    {"GeluErf", {ew::UnaryOp::GeluErf}, [](float x, const ew::UnaryArgs&) { return canonical(onemodel::exact::gelu_erf(x)); }},
    {"GeluTanh", {ew::UnaryOp::GeluTanh}, [](float x, const ew::UnaryArgs&) { return canonical(onemodel::exact::gelu_tanh(x)); }},
    {"LeakyRelu", {ew::UnaryOp::LeakyRelu, 0.01f},
     [](float x, const ew::UnaryArgs& a) { return canonical(x < 0.0f ? a.alpha * x : x); }},
    {"Clip", {ew::UnaryOp::Clip, -0.5f, 2.0f},
     [](float x, const ew::UnaryArgs& a) {
       float v = x;
       if (v < a.alpha) v = a.alpha;
       if (v > a.beta) v = a.beta;
       return canonical(v);
     }},
    {"ClipCrossed", {ew::UnaryOp::Clip, 3.0f, -1.0f},
     [](float x, const ew::UnaryArgs& a) {
       float v = x;
       if (v < a.alpha) v = a.alpha;
       if (v > a.beta) v = a.beta;
       return canonical(v);
     }},
    {"HardSigmoid", {ew::UnaryOp::HardSigmoid, 0.2f, 0.5f},
     [](float x, const ew::UnaryArgs& a) {
       const float p = a.alpha * x;
       float v = p + a.beta;
       if (v < 0.0f) v = 0.0f;
       if (v > 1.0f) v = 1.0f;
       return canonical(v);
     }},
    {"ScaleShift", {ew::UnaryOp::ScaleShift, 0.37f, -1.25f},
     [](float x, const ew::UnaryArgs& a) {
       const float p = a.alpha * x;
       return canonical(p + a.beta);
     }},
    {"HardSwish", {ew::UnaryOp::HardSwish},
     [](float x, const ew::UnaryArgs&) {
       const float p = x * 0.16666667f;
       float g = p + 0.5f;
       if (g < 0.0f) g = 0.0f;
       if (g > 1.0f) g = 1.0f;
       return canonical(x * g);
     }},
    // The self-gate fusions: the separate operators' values, Sigmoid's or HardSigmoid's stored
    // result (canonical NaN) times x, stored as the Mul stores it (docs/design.md "Self-gated
    // activations").
    {"Silu", {ew::UnaryOp::Silu},
     [](float x, const ew::UnaryArgs&) { return canonical(x * onemodel::exact::sigmoid(x)); }},
    {"HardSigmoidGate", {ew::UnaryOp::HardSigmoidGate, 0.2f, 0.5f},
     [](float x, const ew::UnaryArgs& a) {
       const float p = a.alpha * x;
       float v = p + a.beta;
       if (v < 0.0f) v = 0.0f;
       if (v > 1.0f) v = 1.0f;
       return canonical(x * canonical(v));
     }},
    // The erf-form GELU chain of the opset-17 exports as ElementwiseProgramOp runs it: the five
    // operators' stored values (canonical NaN after each), Div, Erf, Add, Mul by x, Mul.
    {"ErfGateChain", {ew::UnaryOp::ErfGateChain, 1.4142135f, 1.0f, false, 0.5f},
     [](float x, const ew::UnaryArgs& a) { return erf_gate_chain_oracle(x, a); }},
    {"ErfGateChainOddConstants", {ew::UnaryOp::ErfGateChain, -0.75f, 0.25f, false, 3.0f},
     [](float x, const ew::UnaryArgs& a) { return erf_gate_chain_oracle(x, a); }},
};

std::string describe(Isa isa, int threads, std::size_t i, float x, float got, float want) {
  char text[200];
  std::snprintf(text, sizeof text, "%s threads %d element %zu x=%.9g (0x%08x): got 0x%08x want 0x%08x",
                std::string(onemodel::opt::isa_name(isa)).c_str(), threads, i, x, bits(x), bits(got), bits(want));
  return text;
}

TEST(ElementwiseKernels, ScalarTwinMatchesTheOracles) {
  const std::vector<float> x = sweep();
  std::vector<float> y(x.size());
  for (const UnaryCase& c : kUnaryCases) {
    SCOPED_TRACE(c.name);
    ew::unary_f32_run(Isa::Scalar, c.args, x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want = c.oracle(x[i], c.args);
      ASSERT_EQ(bits(y[i]), bits(want)) << describe(Isa::Scalar, 1, i, x[i], y[i], want);
    }
  }
}

TEST(ElementwiseKernels, EveryPathAndThreadCountGivesTheScalarBits) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("ElementwiseKernels.EveryPathAndThreadCountGivesTheScalarBits");
  // Repeat the sweep so the array spans several fixed chunks.
  std::vector<float> x = sweep();
  const std::size_t base = x.size();
  while (x.size() < 3 * ew::kChunkElements + 5) x.insert(x.end(), x.begin(), x.begin() + static_cast<std::ptrdiff_t>(base));
  std::vector<float> want(x.size()), got(x.size());
  for (const UnaryCase& c : kUnaryCases) {
    SCOPED_TRACE(c.name);
    ew::unary_f32_run(Isa::Scalar, c.args, x.data(), want.data(), x.size());
    for (Isa isa : ew_variant_paths()) {
      for (int threads : {1, 2}) {
        ThreadPool pool(threads, ThreadPool::Sharing::Always);
        const KernelContext context{isa, true, &pool};
        std::fill(got.begin(), got.end(), 123.0f);
        ew::unary_f32(context, c.args, x.data(), got.data(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
          ASSERT_EQ(bits(got[i]), bits(want[i])) << describe(isa, threads, i, x[i], got[i], want[i]);
        }
        // In place: the output is the input (in_place_input = 0).
        std::vector<float> inplace = x;
        ew::unary_f32(context, c.args, inplace.data(), inplace.data(), inplace.size());
        ASSERT_EQ(std::memcmp(inplace.data(), want.data(), want.size() * sizeof(float)), 0) << "in place";
      }
    }
  }
}

TEST(ElementwiseKernels, ShortLengthsUseTheSameBitsAsLongOnes) {
  const std::vector<float> x = sweep();
  for (const UnaryCase& c : kUnaryCases) {
    for (Isa isa : ew_variant_paths()) {
      for (std::size_t n = 0; n <= 19; ++n) {
        std::vector<float> y(n + 1, 7.0f);
        ew::unary_f32_run(isa, c.args, x.data() + 100, y.data(), n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(bits(y[i]), bits(c.oracle(x[100 + i], c.args))) << c.name;
        ASSERT_EQ(y[n], 7.0f) << "wrote past the end";
      }
    }
  }
}

// ew::scale_shift_activation_f32_run (a BatchNormalization plane and its fused activation,
// batch_norm.hpp): each output is the activation's oracle on canonical(a * x + shift), the two
// roundings of ScaleShift's oracle, on every path, for every function of the list (Relu, LeakyRelu
// and Clip in registers, the others in cached blocks), with special factors and shifts (a = -0 and
// shift = -0 give -0 outputs, which Relu makes +0), lengths across lane widths and blocks (the
// sweep is several blocks and a partial one), in place and not, nothing written past the end.
TEST(ElementwiseKernels, ScaleShiftThenActivationIsTheTwoStepsBits) {
  // Every 41st value of the sweep, then its specials and dense walk whole: some 28000 values.
  const std::vector<float> all = sweep();
  std::vector<float> x;
  const std::size_t walk = 30 + static_cast<std::size_t>(24.0f / 0.0137f) + 2;
  for (std::size_t i = 0; i + walk < all.size(); i += 41) x.push_back(all[i]);
  x.insert(x.end(), all.end() - static_cast<std::ptrdiff_t>(walk), all.end());
  const float nan = from_bits(0x7FC00000u), inf = from_bits(0x7F800000u);
  const std::pair<float, float> affine[] = {{0.37f, -1.25f}, {-0.0f, -0.0f}, {1.0f, -0.0f}, {inf, 0.5f},
                                            {-2.5f, nan},    {nan, 1.0f},    {3.0e-39f, -0.0f}};
  for (const UnaryCase& c : kUnaryCases) {
    for (const std::pair<float, float>& pair : affine) {
      // Named copies, not a structured binding: clang before 16 cannot capture those in a lambda.
      const float a = pair.first, shift = pair.second;
      const auto want = [&](float v) {
        const float p = a * v;
        return c.oracle(canonical(p + shift), c.args);
      };
      for (Isa isa : ew_variant_paths()) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(onemodel::opt::isa_name(isa)) + " a=" + std::to_string(a) +
                     " shift=" + std::to_string(shift));
        for (std::size_t n = 0; n <= 19; ++n) {
          std::vector<float> y(n + 1, 7.0f);
          ew::scale_shift_activation_f32_run(isa, a, shift, c.args, x.data() + 100, y.data(), n);
          for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(bits(y[i]), bits(want(x[100 + i]))) << "n " << n << " i " << i;
          ASSERT_EQ(y[n], 7.0f) << "wrote past the end";
        }
        std::vector<float> y(x.size() + 1, 7.0f);
        ew::scale_shift_activation_f32_run(isa, a, shift, c.args, x.data(), y.data(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
          const float w = want(x[i]);
          ASSERT_EQ(bits(y[i]), bits(w)) << describe(isa, 1, i, x[i], y[i], w);
        }
        ASSERT_EQ(y[x.size()], 7.0f) << "wrote past the end";
        std::vector<float> inplace = x;
        ew::scale_shift_activation_f32_run(isa, a, shift, c.args, inplace.data(), inplace.data(), inplace.size());
        ASSERT_EQ(std::memcmp(inplace.data(), y.data(), x.size() * sizeof(float)), 0) << "in place";
      }
    }
  }
}

float apply(ew::BinaryOp op, float a, float b) {
  switch (op) {
    case ew::BinaryOp::Add: return canonical(a + b);
    case ew::BinaryOp::Sub: return canonical(a - b);
    case ew::BinaryOp::Mul: return canonical(a * b);
    case ew::BinaryOp::Div: return canonical(a / b);
  }
  return 0.0f;
}

const ew::BinaryOp kBinaryOps[] = {ew::BinaryOp::Add, ew::BinaryOp::Sub, ew::BinaryOp::Mul, ew::BinaryOp::Div};

TEST(ElementwiseKernels, BinaryRunsMatchTheFormulaOnSpecialValues) {
  const std::vector<float> a = sweep();
  std::vector<float> b(a.rbegin(), a.rend());
  std::vector<float> y(a.size());
  for (ew::BinaryOp op : kBinaryOps) {
    for (Isa isa : ew_variant_paths()) {
      for (std::ptrdiff_t a_step : {0, 1}) {
        for (std::ptrdiff_t b_step : {0, 1}) {
          // Operand 0 broadcast takes each special value in turn.
          for (std::size_t k : {std::size_t{0}, a.size() - 30, a.size() - 27, a.size() - 26, a.size() - 25}) {
            const float* pa = a.data() + (a_step == 0 ? k : 0);
            const float* pb = b.data() + (b_step == 0 ? b.size() - 1 - k : 0);
            ew::binary_f32_run(isa, op, pa, a_step, pb, b_step, y.data(), y.size());
            for (std::size_t i = 0; i < y.size(); ++i) {
              const float want = apply(op, pa[a_step * static_cast<std::ptrdiff_t>(i)], pb[b_step * static_cast<std::ptrdiff_t>(i)]);
              ASSERT_EQ(bits(y[i]), bits(want)) << "op " << int(op) << " " << onemodel::opt::isa_name(isa) << " i " << i;
            }
          }
        }
      }
    }
  }
}

// Naive NumPy broadcast from spec/ops/elementwise.md section 2: right-align, each output index
// reads index 0 on the operand's axes of extent 1.
std::vector<float> naive_broadcast(ew::BinaryOp op, const std::vector<float>& a, const std::vector<std::int32_t>& as,
                                   const std::vector<float>& b, const std::vector<std::int32_t>& bs,
                                   const std::vector<std::int32_t>& ys) {
  std::size_t n = 1;
  for (auto e : ys) n *= static_cast<std::size_t>(e);
  std::vector<float> y(n);
  const int rank = static_cast<int>(ys.size());
  auto flat = [&](const std::vector<std::int32_t>& shape, const std::vector<std::int64_t>& index) {
    std::size_t offset = 0;
    const int shift = rank - static_cast<int>(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const std::int64_t i = shape[d] == 1 ? 0 : index[d + static_cast<std::size_t>(shift)];
      offset = offset * static_cast<std::size_t>(shape[d]) + static_cast<std::size_t>(i);
    }
    return offset;
  };
  std::vector<std::int64_t> index(ys.size(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = apply(op, a[flat(as, index)], b[flat(bs, index)]);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < ys[static_cast<std::size_t>(d)]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  return y;
}

#if ONEMODEL_HAVE_RAPIDCHECK
// Not a thread test: rapidcheck's shapes are mostly one chunk; LongRowsAndManyShortRowsSplitIntoChunks
// below shares broadcast calls between two threads.
TEST(ElementwiseKernels, BroadcastMatchesANaiveWalk) {
  const std::vector<float> pool_values = sweep();
  EXPECT_TRUE(rc::check("binary broadcast", [&]() {
    const int rank = *rc::gen::inRange(0, 6);
    const auto extents = *rc::gen::container<std::vector<std::int32_t>>(
        static_cast<std::size_t>(rank), rc::gen::oneOf(rc::gen::just(1), rc::gen::inRange(0, 5), rc::gen::inRange(5, 40)));
    // Each operand: a suffix of the output's axes, each kept or set to 1.
    auto operand = [&]() {
      const int own_rank = *rc::gen::inRange(0, rank + 1);
      std::vector<std::int32_t> shape;
      for (int d = rank - own_rank; d < rank; ++d) {
        shape.push_back(*rc::gen::element(0, 1) == 0 ? 1 : extents[static_cast<std::size_t>(d)]);
      }
      return shape;
    };
    auto as = operand();
    auto bs = operand();
    std::size_t y_count = 1;
    for (auto e : extents) y_count *= static_cast<std::size_t>(e);
    RC_PRE(y_count <= 200000u);
    auto fill = [&](const std::vector<std::int32_t>& shape) {
      std::size_t count = 1;
      for (auto e : shape) count *= static_cast<std::size_t>(e);
      const std::size_t start = *rc::gen::inRange<std::size_t>(0, pool_values.size());
      std::vector<float> v(count);
      for (std::size_t i = 0; i < count; ++i) v[i] = pool_values[(start + i * 7) % pool_values.size()];
      return v;
    };
    const auto a = fill(as);
    const auto b = fill(bs);
    const ew::BinaryOp op = *rc::gen::element(ew::BinaryOp::Add, ew::BinaryOp::Sub, ew::BinaryOp::Mul, ew::BinaryOp::Div);
    const auto want = naive_broadcast(op, a, as, b, bs, extents);
    for (Isa isa : ew_variant_paths()) {
      for (int threads : {1, 2}) {
        ThreadPool pool(threads, ThreadPool::Sharing::Always);
        const KernelContext context{isa, true, &pool};
        std::vector<float> got(want.size(), 5.0f);
        ew::binary_f32(context, op, a.data(), as, b.data(), bs, got.data(), extents);
        // memcmp of empty vectors would pass null pointers (undefined even for 0 bytes). Decided
        // outside RC_ASSERT: its expression capture overloads ||, which then evaluates both sides.
        const bool same = want.empty() || std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0;
        RC_ASSERT(same);
      }
    }
  }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

TEST(ElementwiseKernels, LongRowsAndManyShortRowsSplitIntoChunks) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("ElementwiseKernels.LongRowsAndManyShortRowsSplitIntoChunks");
  // A row longer than a chunk ([2, 40000] + [40000]) and many short rows ([50000, 3] + [50000, 1]).
  const std::vector<float> values = sweep();
  struct Shapes {
    std::vector<std::int32_t> a, b, y;
  };
  const Shapes cases[] = {{{2, 40000}, {40000}, {2, 40000}}, {{50000, 3}, {50000, 1}, {50000, 3}},
                          {{1, 3}, {50000, 1}, {50000, 3}}, {{70001}, {}, {70001}}};
  for (const Shapes& s : cases) {
    auto fill = [&](const std::vector<std::int32_t>& shape, std::size_t start) {
      std::size_t count = 1;
      for (auto e : shape) count *= static_cast<std::size_t>(e);
      std::vector<float> v(count);
      for (std::size_t i = 0; i < count; ++i) v[i] = values[(start + i * 3) % values.size()];
      return v;
    };
    const auto a = fill(s.a, 11);
    const auto b = fill(s.b, 977);
    for (ew::BinaryOp op : kBinaryOps) {
      const auto want = naive_broadcast(op, a, s.a, b, s.b, s.y);
      for (Isa isa : ew_variant_paths()) {
        for (int threads : {1, 2}) {
          ThreadPool pool(threads, ThreadPool::Sharing::Always);
          const KernelContext context{isa, true, &pool};
          std::vector<float> got(want.size());
          ew::binary_f32(context, op, a.data(), s.a, b.data(), s.b, got.data(), s.y);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
              << onemodel::opt::isa_name(isa) << " threads " << threads;
        }
      }
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(ElementwiseRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(ew::variants(), "f32_elementwise");
  EXPECT_FALSE(ew_variant_paths().empty());
}

}  // namespace

namespace {

// ErfGateChain against its five operators on every path, over a dense sweep: every 257th bit
// pattern (NaN payloads, +-0, subnormals, +-inf among them) and every pattern within 4096 ulps of
// the branch points the chain's erf argument x / 1.4142135 meets: |x / d| = 0.5 (erf's two
// branches), 64 (zLo's clamp), 10.197 (exp's flush of e^-z at -103.97) and 0.
TEST(ElementwiseKernels, ErfGateChainGivesTheFiveOperatorsBitsOnADenseSweep) {
  const ew::UnaryArgs args{ew::UnaryOp::ErfGateChain, 1.4142135f, 1.0f, false, 0.5f};
  std::vector<float> x;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 257) x.push_back(from_bits(static_cast<std::uint32_t>(u)));
  for (float point : {0.5f, 64.0f, 10.197f}) {
    const std::uint32_t centre = bits(point * 1.4142135f);
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      for (std::uint32_t u = centre - 4096; u <= centre + 4096; ++u) x.push_back(from_bits(u | sign));
    }
  }
  for (std::uint32_t u = 0; u <= 4096; ++u) {
    x.push_back(from_bits(u));
    x.push_back(from_bits(u | 0x80000000u));
  }
  for (std::uint32_t u = 0x7F800000u; u <= 0x7F801000u; ++u) {  // +inf, then NaN payloads
    x.push_back(from_bits(u));
    x.push_back(from_bits(u | 0x80000000u));
  }
  x.push_back(from_bits(0xFFFFFFFFu));
  x.push_back(from_bits(0x7FFFFFFFu));
  std::vector<float> want(x.size()), got(x.size()), step_a(x.size()), step_b(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = erf_gate_chain_oracle(x[i], args);
  for (Isa isa : ew_variant_paths()) {
    SCOPED_TRACE(std::string(onemodel::opt::isa_name(isa)));
    std::fill(got.begin(), got.end(), 123.0f);
    ew::unary_f32_run(isa, args, x.data(), got.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(bits(got[i]), bits(want[i])) << describe(isa, 1, i, x[i], got[i], want[i]);
    }
    // The same path's five separate kernels give those bits too.
    const float d = args.alpha, c = args.beta, f = args.gamma;
    ew::binary_f32_run(isa, ew::BinaryOp::Div, x.data(), 1, &d, 0, step_a.data(), x.size());
    ew::unary_f32_run(isa, ew::UnaryArgs{ew::UnaryOp::Erf}, step_a.data(), step_b.data(), x.size());
    ew::binary_f32_run(isa, ew::BinaryOp::Add, step_b.data(), 1, &c, 0, step_a.data(), x.size());
    ew::binary_f32_run(isa, ew::BinaryOp::Mul, x.data(), 1, step_a.data(), 1, step_b.data(), x.size());
    ew::binary_f32_run(isa, ew::BinaryOp::Mul, step_b.data(), 1, &f, 0, step_a.data(), x.size());
    ASSERT_EQ(std::memcmp(step_a.data(), got.data(), got.size() * sizeof(float)), 0);
  }
}

}  // namespace
