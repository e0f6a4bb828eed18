// The loops of the element-wise kernels over a lanes type L (see lane_math.hpp): full groups of
// L::kWidth elements first, then the tail through a small buffer holding the same code's lanes
// (or masked loads and stores, MaskedTail), so an element's result never depends on its position
// (spec-source ops-elementwise.md, "Lane widths"). Instantiated once per instruction-set file with
// that file's lanes type.
#pragma once

#include <cstddef>
#include <cstring>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/lane_math.hpp"
#include "optimized/kernels/lanes/paired_lanes.hpp"

namespace onemodel::opt::ew {

// Lanes types with masked memory operations (AVX-512) run the tail with them: the lanes past the
// end read +0, as from the zeroed buffer, so every kept lane computes the same thing, without the
// two copies through the buffer (about 10 ns a call; a convolution's epilogue makes one per row).
template <class L>
concept MaskedTail = requires(const float* p, float* q, typename L::F v, std::size_t count) {
  L::load_first(p, count);
  L::store_first(q, v, count);
};

template <class L, class Fn>
void map_unary(Fn fn, const float* x, float* y, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + L::kWidth <= n; i += L::kWidth) L::store(y + i, fn(L::load(x + i)));
  if constexpr (MaskedTail<L>) {
    if (i < n) L::store_first(y + i, fn(L::load_first(x + i, n - i)), n - i);
    return;
  }
  if (i < n) {
    float buffer[L::kWidth] = {};
    std::memcpy(buffer, x + i, (n - i) * sizeof(float));
    L::store(buffer, fn(L::load(buffer)));
    std::memcpy(y + i, buffer, (n - i) * sizeof(float));
  }
}

// Names a lanes type for map_unary_paired's functions, which are called with both L and
// PairedLanes<L>: fn(LanesTag<X>{}, v) computes with X.
template <class X>
struct LanesTag {
  using type = X;
};
template <class Tag>
using lanes_of = typename Tag::type;

// map_unary for the long sequences (lanes/paired_lanes.hpp): whole groups of four vectors over
// PairedLanes<PairedLanes<L>>, then what is left by map_unary over L. Four chains side by side
// beat two on Zen 3 (1M floats, us: fast GELU erf form 3157 -> 2250, tanh form 1450 -> 814, fast
// sigmoid 995 -> 562, exact tanh 1879 -> 1202; the machine shared, two alternated rounds). Every lane runs L's operations either way,
// so an element's bits do not depend on which of the two loops took it. Flattened: a pair passed
// to a sequence that was not inlined would go through memory, slower than one vector at a time.
template <class L, class Fn>
[[gnu::flatten]] void map_unary_paired(Fn fn, const float* x, float* y, std::size_t n) noexcept {
  using P = PairedLanes<PairedLanes<L>>;
  std::size_t i = 0;
  for (; i + P::kWidth <= n; i += P::kWidth) P::store(y + i, fn(LanesTag<P>{}, P::load(x + i)));
  if (i < n) map_unary<L>([&](typename L::F v) { return fn(LanesTag<L>{}, v); }, x + i, y + i, n - i);
}

// The one-vector functions of the cheap activations and of ScaleShift, shared by unary_lanes and
// scale_shift_activation_lanes so that the fused loop runs the very operations of the separate
// ones (spec/ops/elementwise.md sections 3 and 6; exact-mode.md rule 4 for the canonical NaN).
// Relu: x > 0 ? x : +0 (Relu(-0) = +0); a NaN stays NaN, stored canonical.
template <class L>
typename L::F relu_lane(typename L::F v, typename L::F zero) noexcept {
  return L::select(L::is_nan(v), splat_bits<L>(kCanonicalNan), L::select(L::gt(v, zero), v, zero));
}

// LeakyRelu: x < 0 ? alpha * x : x, the product rounded, canonical NaN.
template <class L>
typename L::F leaky_relu_lane(typename L::F v, typename L::F alpha, typename L::F zero) noexcept {
  return canonical<L>(L::select(L::lt(v, zero), L::mul(alpha, v), v));
}

// Clip: v < lo -> lo; then v > hi -> hi, canonical NaN.
template <class L>
typename L::F clip_lane(typename L::F v, typename L::F lo, typename L::F hi) noexcept {
  v = L::select(L::lt(v, lo), lo, v);
  return canonical<L>(L::select(L::gt(v, hi), hi, v));
}

// ScaleShift: a * x + shift, the product and the sum each rounded, canonical NaN.
template <class L>
typename L::F scale_shift_lane(typename L::F v, typename L::F a, typename L::F shift) noexcept {
  return canonical<L>(L::add(L::mul(a, v), shift));
}

// spec/ops/elementwise.md sections 3 and 8; each function ends with the canonical NaN of
// exact-mode.md rule 4 (the reference stores every float through ew::store_f32).
template <class L>
void unary_lanes(const UnaryArgs& args, const float* x, float* y, std::size_t n) noexcept {
  using F = typename L::F;
  const F zero = L::splat(0.0f);
  const F one = L::splat(1.0f);
  const F alpha = L::splat(args.alpha);
  const F beta = L::splat(args.beta);
  switch (args.op) {
    case UnaryOp::Relu:  // x > 0 ? x : +0 (Relu(-0) = +0); NaN passes, canonical
      return map_unary<L>([&](F v) { return relu_lane<L>(v, zero); }, x, y, n);
    case UnaryOp::Neg:
      return map_unary<L>([&](F v) { return canonical<L>(neg_bits<L>(v)); }, x, y, n);
    case UnaryOp::Abs:
      return map_unary<L>([&](F v) { return canonical<L>(abs_bits<L>(v)); }, x, y, n);
    case UnaryOp::Sqrt:
      return map_unary<L>([&](F v) { return canonical<L>(L::sqrt(v)); }, x, y, n);
    case UnaryOp::Exp:
      return map_unary_paired<L>([](auto t, auto v) { return exp<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::Log:
      return map_unary_paired<L>([](auto t, auto v) { return log<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::Tanh:
      return map_unary_paired<L>([](auto t, auto v) { return tanh<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::Sigmoid:
      if (args.fast) {
        return map_unary_paired<L>([](auto t, auto v) { return fast_sigmoid<lanes_of<decltype(t)>>(v); }, x, y, n);
      }
      return map_unary_paired<L>([](auto t, auto v) { return sigmoid<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::Erf:
      return map_unary_paired<L>([](auto t, auto v) { return erf<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::ErfGateChain: {
      const float divisor = args.alpha, addend = args.beta, factor = args.gamma;
      return map_unary_paired<L>(
          [divisor, addend, factor](auto t, auto v) {
            using X = lanes_of<decltype(t)>;
            return erf_gate_chain<X>(v, X::splat(divisor), X::splat(addend), X::splat(factor));
          },
          x, y, n);
    }
    case UnaryOp::GeluErf:
      if (args.fast) {
        return map_unary_paired<L>(
            [](auto t, auto v) {
              using X = lanes_of<decltype(t)>;
              return canonical<X>(fast_gelu_erf<X>(v));
            },
            x, y, n);
      }
      return map_unary_paired<L>(
          [](auto t, auto v) {
            using X = lanes_of<decltype(t)>;
            return canonical<X>(gelu_erf<X>(v));
          },
          x, y, n);
    case UnaryOp::GeluTanh:
      if (args.fast) {
        return map_unary_paired<L>(
            [](auto t, auto v) {
              using X = lanes_of<decltype(t)>;
              return canonical<X>(fast_gelu_tanh<X>(v));
            },
            x, y, n);
      }
      return map_unary_paired<L>(
          [](auto t, auto v) {
            using X = lanes_of<decltype(t)>;
            return canonical<X>(gelu_tanh<X>(v));
          },
          x, y, n);
    case UnaryOp::LeakyRelu:  // x < 0 ? alpha * x : x
      return map_unary<L>([&](F v) { return leaky_relu_lane<L>(v, alpha, zero); }, x, y, n);
    case UnaryOp::Clip:  // v < lo -> lo; then v > hi -> hi (spec/ops/elementwise.md section 6)
      return map_unary<L>([&](F v) { return clip_lane<L>(v, alpha, beta); }, x, y, n);
    case UnaryOp::HardSigmoid:  // product rounded, then sum; clamp to [0, 1]
      return map_unary<L>(
          [&](F v) {
            F r = L::add(L::mul(alpha, v), beta);
            r = L::select(L::lt(r, zero), zero, r);
            return canonical<L>(L::select(L::gt(r, one), one, r));
          },
          x, y, n);
    case UnaryOp::ScaleShift:  // product rounded, then sum rounded, canonical NaN
      return map_unary<L>([&](F v) { return scale_shift_lane<L>(v, alpha, beta); }, x, y, n);
    case UnaryOp::HardSwish:  // x * clamp(x * 0.16666667 + 0.5, 0, 1)
      return map_unary<L>([&](F v) { return hard_swish<L>(v); }, x, y, n);
    case UnaryOp::Silu:  // Sigmoid's value (canonical NaN), then the Mul: one product, canonical
      if (args.fast) {
        return map_unary_paired<L>([](auto t, auto v) { return fast_silu<lanes_of<decltype(t)>>(v); }, x, y, n);
      }
      return map_unary_paired<L>([](auto t, auto v) { return silu<lanes_of<decltype(t)>>(v); }, x, y, n);
    case UnaryOp::HardSigmoidGate:  // HardSigmoid's value exactly as above, then the Mul
      return map_unary<L>(
          [&](F v) {
            F r = L::add(L::mul(alpha, v), beta);
            r = L::select(L::lt(r, zero), zero, r);
            r = canonical<L>(L::select(L::gt(r, one), one, r));
            return canonical<L>(L::mul(v, r));
          },
          x, y, n);
  }
}

// y = act(ScaleShift(x)) for act Relu, LeakyRelu or Clip, the activation applied to the vector in
// registers between the sum and the store. ScaleShift's value is taken before its canonical NaN:
// each of the three stores every NaN input as the canonical NaN whatever its payload (relu_lane
// selects it; the other two pass a NaN through ordered comparisons and end with canonical<L>), and
// canonical<L> changes no other value, so skipping that select gives the same bits. Flattened:
// with map_unary compiled out of line the loop read a, shift and the bounds through the lambda's
// captured references on every vector (GCC 12), about 1.4x the time on a plane in the cache.
template <class L>
[[gnu::flatten]] void scale_shift_activation_in_registers(float a, float shift, const UnaryArgs& act, const float* x,
                                                          float* y, std::size_t n) noexcept {
  using F = typename L::F;
  const F va = L::splat(a);
  const F vshift = L::splat(shift);
  const F zero = L::splat(0.0f);
  const F alpha = L::splat(act.alpha);
  const F beta = L::splat(act.beta);
  const auto affine = [va, vshift](F v) { return L::add(L::mul(va, v), vshift); };
  switch (act.op) {
    case UnaryOp::LeakyRelu:
      return map_unary<L>([=](F v) { return leaky_relu_lane<L>(affine(v), alpha, zero); }, x, y, n);
    case UnaryOp::Clip:
      return map_unary<L>([=](F v) { return clip_lane<L>(affine(v), alpha, beta); }, x, y, n);
    default:  // Relu
      return map_unary<L>([=](F v) { return relu_lane<L>(affine(v), zero); }, x, y, n);
  }
}

// Elements per block of the two-step form below: 2 KB, kept in the first-level cache between the
// two steps (the elementwise-chain program's block, elementwise_program.cpp).
inline constexpr std::size_t kScaleShiftBlock = 512;

// y = act(ScaleShift(x)): the bits of ScaleShift's stored value (canonical NaN) followed by the
// activation `act` as unary_lanes applies it (a BatchNormalization followed by its activation,
// batch_norm.hpp). Relu, LeakyRelu and Clip in registers (above); every other function runs as the
// two calls themselves on blocks of kScaleShiftBlock values, the second one reading the first
// one's stores from the first-level cache. x and y may be the same array (each block, and each
// vector, is read before it is written).
template <class L>
void scale_shift_activation_lanes(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                  std::size_t n) noexcept {
  if (act.op == UnaryOp::Relu || act.op == UnaryOp::LeakyRelu || act.op == UnaryOp::Clip) {
    return scale_shift_activation_in_registers<L>(a, shift, act, x, y, n);
  }
  const UnaryArgs first{UnaryOp::ScaleShift, a, shift};
  for (std::size_t i = 0; i < n; i += kScaleShiftBlock) {
    const std::size_t count = n - i < kScaleShiftBlock ? n - i : kScaleShiftBlock;
    unary_lanes<L>(first, x + i, y + i, count);
    unary_lanes<L>(act, y + i, y + i, count);
  }
}

// y = op(a, b), each operand contiguous (step 1) or one broadcast value (step 0).
template <class L, class Op>
void map_binary(Op op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step, float* y,
                std::size_t n) noexcept {
  using F = typename L::F;
  std::size_t i = 0;
  if (a_step != 0 && b_step != 0) {
    for (; i + L::kWidth <= n; i += L::kWidth) L::store(y + i, op(L::load(a + i), L::load(b + i)));
  } else if (a_step != 0) {
    const F vb = L::splat(*b);
    for (; i + L::kWidth <= n; i += L::kWidth) L::store(y + i, op(L::load(a + i), vb));
  } else if (b_step != 0) {
    const F va = L::splat(*a);
    for (; i + L::kWidth <= n; i += L::kWidth) L::store(y + i, op(va, L::load(b + i)));
  } else {
    const F v = op(L::splat(*a), L::splat(*b));
    for (; i + L::kWidth <= n; i += L::kWidth) L::store(y + i, v);
  }
  if constexpr (MaskedTail<L>) {
    if (i < n) {
      const std::size_t count = n - i;
      const F va = a_step != 0 ? L::load_first(a + i, count) : L::splat(*a);
      const F vb = b_step != 0 ? L::load_first(b + i, count) : L::splat(*b);
      L::store_first(y + i, op(va, vb), count);
    }
    return;
  }
  if (i < n) {
    float ba[L::kWidth] = {};
    float bb[L::kWidth] = {};
    for (std::size_t j = 0; j < n - i; ++j) {
      ba[j] = a[a_step * static_cast<std::ptrdiff_t>(i + j)];
      bb[j] = b[b_step * static_cast<std::ptrdiff_t>(i + j)];
    }
    L::store(ba, op(L::load(ba), L::load(bb)));
    std::memcpy(y + i, ba, (n - i) * sizeof(float));
  }
}

// spec/ops/elementwise.md sections 1 and 3: one IEEE operation, then the canonical NaN.
template <class L>
void binary_lanes(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                  float* y, std::size_t n) noexcept {
  using F = typename L::F;
  switch (op) {
    case BinaryOp::Add:
      return map_binary<L>([](F u, F v) { return canonical<L>(L::add(u, v)); }, a, a_step, b, b_step, y, n);
    case BinaryOp::Sub:
      return map_binary<L>([](F u, F v) { return canonical<L>(L::sub(u, v)); }, a, a_step, b, b_step, y, n);
    case BinaryOp::Mul:
      return map_binary<L>([](F u, F v) { return canonical<L>(L::mul(u, v)); }, a, a_step, b, b_step, y, n);
    case BinaryOp::Div:
      return map_binary<L>([](F u, F v) { return canonical<L>(L::div(u, v)); }, a, a_step, b, b_step, y, n);
  }
}

}  // namespace onemodel::opt::ew
