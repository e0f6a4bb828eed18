// LinearOp, the node linear-pack-fuse makes (graph-passes.md, `linear-pack-fuse`): a MatMul or
// Gemm with a constant 2-D float32 B, then optionally a constant bias added along the last axis,
// then optionally one activation, as one matrix product whose tile epilogue (GemmEpilogue) adds
// the bias and applies the activation. B is packed once, when the pass makes the node (the
// layout depends only on the kernel path, graph-passes.md "Packed B"), and the node no longer
// reads the original B, so the pass can release it (graph-passes.md "Memory": packed weights
// replace the originals).
//
// The fused node keeps the replaced nodes' kernels as stages: infer() chains their infer() (so
// shapes, types and errors are theirs), and a run the fused path does not serve (another element
// type) would run the stages one after the other, but B is gone: stage 0's infer already refuses
// an A that is not float32 or does not have k columns, so no run reaches that case (it reports
// Unsupported if one ever does). An empty product writes nothing.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

// One replaced node. Each input is -1 (omitted), kPrevious (the previous stage's output) or an
// index into the fused node's inputs.
struct LinearStage {
  static constexpr int kPrevious = -2;
  std::unique_ptr<OpKernel> kernel;
  NodeInfo info;
  std::vector<int> inputs;
};

struct LinearSpec {
  // Where the bias comes from: a Gemm's beta * C, formed at pass time with the multiply Gemm does
  // per call, then added as Gemm adds it; or an Add node's constant, added by the Add kernel.
  enum class Bias : std::uint8_t { None, GemmC, AddNode };
  bool trans_b = false;          // Gemm's transB: B is stored n x k
  Bias bias_kind = Bias::None;
  std::vector<float> bias;       // n values
  // A residual Add after the product and its bias (docs/design.md "Residual Add"): the fused
  // node's input `residual_input` (-1: none), added to each finished element after the bias and
  // before the activation by the Add override's own call, operands in the Add's order (R first
  // when `residual_first`). `residual_stage` is the Add's stage: a residual that is not float32 of
  // the product's shape at run time (a broadcasting Add) runs the stages from there separately.
  int residual_input = -1;
  bool residual_first = false;
  std::size_t residual_stage = 0;
  bool has_activation = false;
  ew::UnaryArgs activation;
  // F32; or F16 / BF16 in a model with half values (spec/half-precision.md section 8.6): A, B and
  // the result are 16-bit of this type, A is widened while it is packed, B widened as it is packed
  // (once, when the pass makes the node), and the tile epilogue rounds each replaced node's result to
  // the type, as the adapter stores it between them, narrowing the last one into the output (the bias
  // is given widened).
  DType storage = DType::F32;
};

class LinearOp final : public OpKernel {
 public:
  // `b` is the constant B (2-D float32, or a compact weight: float16 or bfloat16 standing for
  // binary32, spec/session.md section 9); the fused node's input 1 is omitted (the pass passes -1).
  // A float32 B is packed here; a compact B is packed too but kept 16 bits wide (pack_half_b) and
  // widened strip by strip inside each run's product (gemm_half.hpp): no binary32 copy exists.
  LinearOp(std::vector<LinearStage> stages, LinearSpec spec, const Tensor& b, const OptimizedConfig& config);

  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

  std::size_t stage_count() const noexcept { return stages_.size(); }

 private:
  // The stages from `first` on, one after the other; `previous` is the result of the stage before.
  void run_stages(RunContext& context, std::size_t first = 0, Tensor previous = Tensor()) const;
  // The product and its bias into scratch, then the stages from the residual Add on, each by its
  // own kernel (a residual the tile epilogue cannot read in place).
  void run_residual_apart(RunContext& context, std::size_t rows, const MatrixView& a_view, const Shape& product) const;
  void run_product(RunContext& context, std::size_t rows, const MatrixView& a_view, float* c, const void* state) const;
  void run_half_storage(RunContext& context) const;

  std::vector<LinearStage> stages_;
  LinearSpec spec_;
  Shape b_shape_;
  // Shared with every other node packing the same matrix the same way (weight_packs.hpp):
  // ALBERT's twelve layers read one set of weights.
  std::shared_ptr<const PackedB> packed_;
  // A compact B: packed 16 bits wide (pack_half_b, U16 values) at the first run that needs it,
  // not when the pass runs: the session's model still holds every compact weight then, so packing
  // at pass time would hold each weight twice; packed at run time, each packing gets from the pool
  // the block the previous weight's original gave back (same size), and the originals go.
  const std::uint16_t* packed_half() const;
  mutable std::once_flag half_once_;
  mutable Tensor half_original_;  // until packed
  mutable Tensor half_;           // packed
  bool compact_ = false;  // B is a compact weight, packed 16 bits wide
  DType b_type_ = DType::F32;  // B's type as stage 0's infer sees it
  HalfFormat half_format_ = HalfFormat::Binary16;
  std::size_t k_ = 0, n_ = 0;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
