// Float32 element-wise kernels of the optimized engine: unary functions (activations and the exact
// transcendentals of spec/exact-transcendentals.md) and binary arithmetic with NumPy broadcasting
// (spec/ops/elementwise.md sections 2 and 8).
//
// Every result is the reference kernel's bits (reference/ops/op_<name>.cpp): each output element
// is one function of its own inputs, evaluated by the same operation sequence on every path
// (lane_math.hpp), and every NaN is stored as 0x7FC00000 (spec/ops/elementwise.md section 3).
// The reference engine uses that same code in fast mode, so fast mode gives these bits too, but for
// the fast-mode sigmoid (UnaryArgs::fast), which is a few ulp away.
// Arrays are cut into fixed chunks of kChunkElements, so threads never change a result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::ew {

enum class UnaryOp : std::uint8_t {
  Relu,         // x > 0 ? x : +0, NaN passes
  Neg,          // sign bit flipped
  Abs,          // sign bit cleared
  Sqrt,         // IEEE square root
  Exp,
  Log,
  Tanh,
  Sigmoid,
  Erf,
  GeluErf,
  GeluTanh,
  LeakyRelu,    // x < 0 ? alpha * x : x
  Clip,         // v = x; v < alpha -> alpha; v > beta -> beta
  HardSigmoid,  // clamp(alpha * x + beta, 0, 1)
  HardSwish,    // x * clamp(x * 0.16666667 + 0.5, 0, 1)
  // x times its own gate, the `self-gate` pass's fusions of Mul(x, Sigmoid(x)) and
  // Mul(x, HardSigmoid(x)): the gate's canonical value as the gate's kernel stores it, then one
  // rounded product and the canonical NaN as the Mul kernel stores it, so the bits of the two
  // separate operators (docs/design.md "Self-gated activations").
  Silu,             // x * sigmoid(x)
  HardSigmoidGate,  // x * clamp(alpha * x + beta, 0, 1)
  // alpha * x + beta, the product and the sum each rounded (no fused step): BatchNormalization's
  // per-element arithmetic once its channel factor and shift are known (batch_norm.hpp).
  ScaleShift,
  // ((erf(x / alpha) + beta) * x) * gamma, five operators' roundings in this order, canonical NaN:
  // the erf-form GELU chain of the opset-17 exports (Div, Erf, Add, Mul, Mul) as the
  // ElementwiseProgramOp recognises it, with those five kernels' bits (lane_math.hpp
  // erf_gate_chain).
  ErfGateChain,
};

struct UnaryArgs {
  UnaryOp op = UnaryOp::Relu;
  float alpha = 0.0f;
  float beta = 0.0f;
  // Fast mode (never set in exact mode): Sigmoid and Silu use fast_sigmoid (lane_math.hpp), a few
  // ulp from the exact sequence and not the same bits on every path (docs/design.md "Fast-mode
  // sigmoid"). Every other function ignores it. Set from the node's mode by the Sigmoid override,
  // the self-gate pass and the fusing passes (activation_args.cpp, elementwise-chain), so a fused
  // node and the separate ones still compute the same function in either mode.
  bool fast = false;
  // The third constant (ErfGateChain's final factor).
  float gamma = 0.0f;
};

// `args` with `fast` set when the node runs in fast mode.
inline UnaryArgs for_mode(UnaryArgs args, bool exact) noexcept {
  args.fast = !exact;
  return args;
}

enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div };

// Elements per chunk of the parallel loops: a constant of the kernel (thread_pool.hpp).
inline constexpr std::size_t kChunkElements = 16384;
// Highest rank of a broadcast (spec/tensors.md: shapes have rank at most 8).
inline constexpr int kMaxRank = 8;

// Single-thread cost estimate per element on the best path, nanoseconds (sets how many workers
// are woken; never what is computed).
double unary_ns_per_element(UnaryOp op) noexcept;

// y[i] = f(x[i]) for i < n. y may be x (in-place); otherwise they must not overlap.
void unary_f32(const KernelContext& context, const UnaryArgs& args, const float* x, float* y, std::size_t n);

// y = a op b over the broadcast shape y_shape (NumPy rules; the shapes are right-aligned and
// already checked by the reference's infer()). y must not overlap a or b.
void binary_f32(const KernelContext& context, BinaryOp op, const float* a, std::span<const std::int32_t> a_shape,
                const float* b, std::span<const std::int32_t> b_shape, float* y,
                std::span<const std::int32_t> y_shape);

// One path, one run of n outputs, no threads: the per-instruction-set entry points (also used by
// the kernel tests). a_step and b_step are 1 (contiguous) or 0 (one value broadcast).
void unary_f32_run(Isa isa, const UnaryArgs& args, const float* x, float* y, std::size_t n);
void binary_f32_run(Isa isa, BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b,
                    std::ptrdiff_t b_step, float* y, std::size_t n);

// y[i] = act(canonical(x[i] * a + shift)) for i < n, one path, no threads: the bits of
// unary_f32_run with {ScaleShift, a, shift} followed by unary_f32_run with `act` in place (a
// BatchNormalization plane and the activation reading it, batch_norm.hpp), in one pass over
// memory: Relu, LeakyRelu and Clip in registers, any other `act` on blocks kept in the first-level
// cache (lane_loops.hpp scale_shift_activation_lanes). y may be x.
void scale_shift_activation_f32_run(Isa isa, float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                    std::size_t n);

}  // namespace onemodel::opt::ew
