// The scalar path of the element-wise kernels: one lane, plain float operations (each a single
// IEEE operation; the build uses -ffp-contract=off so none is fused). It is also the twin the
// kernel tests compare every vector path with.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/elementwise/lane_loops.hpp"

namespace onemodel::opt::ew {
namespace {

struct ScalarLanes {
  using F = float;
  using M = bool;
  using I = std::uint32_t;
  static constexpr std::size_t kWidth = 1;
  static F load(const float* p) noexcept { return *p; }
  static void store(float* p, F v) noexcept { *p = v; }
  static F splat(float v) noexcept { return v; }
  static I splat_i(std::uint32_t v) noexcept { return v; }
  static F add(F a, F b) noexcept { return a + b; }
  static F sub(F a, F b) noexcept { return a - b; }
  static F mul(F a, F b) noexcept { return a * b; }
  static F div(F a, F b) noexcept { return a / b; }
  static F sqrt(F a) noexcept { return std::sqrt(a); }
  static M lt(F a, F b) noexcept { return a < b; }
  static M gt(F a, F b) noexcept { return a > b; }
  static M ge(F a, F b) noexcept { return a >= b; }
  static M eq(F a, F b) noexcept { return a == b; }
  static M is_nan(F a) noexcept { return a != a; }
  static bool all(M m) noexcept { return m; }
  static F select(M m, F t, F f) noexcept { return m ? t : f; }
  static I bits(F a) noexcept {
    I u;
    std::memcpy(&u, &a, sizeof u);
    return u;
  }
  static F from_bits(I u) noexcept {
    F a;
    std::memcpy(&a, &u, sizeof a);
    return a;
  }
  static I add_i(I a, I b) noexcept { return a + b; }
  static I sub_i(I a, I b) noexcept { return a - b; }
  static I and_i(I a, I b) noexcept { return a & b; }
  static I or_i(I a, I b) noexcept { return a | b; }
  static I xor_i(I a, I b) noexcept { return a ^ b; }
  template <int N>
  static I srai(I a) noexcept {
    return static_cast<I>(static_cast<std::int32_t>(a) >> N);  // arithmetic in C++20
  }
  template <int N>
  static I slli(I a) noexcept {
    return a << N;
  }
};

}  // namespace

void unary_f32__scalar(const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  unary_lanes<ScalarLanes>(args, x, y, n);
}

void scale_shift_activation_f32__scalar(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                        std::size_t n) {
  scale_shift_activation_lanes<ScalarLanes>(a, shift, act, x, y, n);
}

void binary_f32__scalar(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                        float* y, std::size_t n) {
  binary_lanes<ScalarLanes>(op, a, a_step, b, b_step, y, n);
}

}  // namespace onemodel::opt::ew
