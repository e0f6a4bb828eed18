// ElementwiseProgramOp, the node the `elementwise-chain` pass makes (docs/design.md, "Element-wise
// chains"): a chain of float32 element-wise operators that reads one tensor, with one-element
// constants on the side, run as one pass over memory. Each step is the very call the separate
// operator's override makes (ew::unary_f32_run / ew::binary_f32_run, a constant operand broadcast
// with step 0, spec/ops/elementwise.md sections 2 and 8), applied to blocks small enough to stay in
// the first-level cache, so every step's output bits, NaN canonicalisation included, are those of
// the separate operators: the pass preserves bits and also runs in exact mode.
#pragma once

#include <cstdint>
#include <vector>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

// One operator of the chain. Registers: 0 is the chain's input; 1.. are block-sized scratch
// slots. A binary operand is a register or, when its *_const flag is set, the constant `value`.
struct EwStep {
  bool binary = false;
  ew::UnaryArgs unary;                 // when !binary
  ew::BinaryOp op = ew::BinaryOp::Add;  // when binary
  int a = 0;                           // register of the unary input / binary left operand
  int b = 0;                           // register of the right operand
  bool a_const = false, b_const = false;
  float value = 0.0f;  // the constant operand
  int result = 0;      // value number of the result: 1 + index of the step
};

class ElementwiseProgramOp final : public OpKernel {
 public:
  // `steps` in dependency order; the last step's result is the output. `constant_rank`: the highest
  // rank among the constants (all extents 1), which the output shape is broadcast with.
  // `storage`: F32, or F16 / BF16 for a chain of a model with half values (spec/half-precision.md
  // section 8.6), whose input and output are then 16-bit and every step's result is rounded to
  // the format as the adapter stores it between the replaced nodes (the constants are given
  // widened).
  ElementwiseProgramOp(const OptimizedConfig& config, std::vector<EwStep> steps, int constant_rank,
                       DType storage = DType::F32);

  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

  std::size_t step_count() const noexcept { return steps_.size(); }
  // The program runs as ew::UnaryOp::ErfGateChain (the erf-form GELU export, same bits).
  bool runs_erf_gate_chain() const noexcept { return erf_gate_chain_; }

 private:
  // A step with its operands and result resolved to slots: -1 the input, -2 the output, else a
  // scratch slot.
  struct Resolved {
    EwStep step;
    int a_slot = -1, b_slot = -1, out_slot = -2;
  };
  // `round_steps`: every result but the last rounded through the storage format (a 16-bit chain).
  void run_block(Isa isa, const float* x, float* y, std::size_t count, float* scratch, bool round_steps) const;

  OptimizedConfig config_;
  // Set when the program is the erf-form GELU chain ew::UnaryOp::ErfGateChain computes with the
  // same bits (a float32 chain only): then one pass of that function replaces the steps.
  bool erf_gate_chain_ = false;
  ew::UnaryArgs erf_gate_args_;
  std::vector<Resolved> program_;
  std::vector<EwStep> steps_;
  int slots_ = 0;
  int constant_rank_ = 0;
  DType storage_ = DType::F32;
  double ns_per_element_ = 0.0;
};

}  // namespace onemodel::opt
