// The base of every optimized operator (DESIGN.md section 1, the BLIS pattern): it holds the
// reference kernel of the same node, states outputs with the reference's infer() (so shapes,
// types and errors are the reference's by construction) and falls back to the reference run()
// for whatever it does not serve faster (element types, attribute cases).
#pragma once

#include <cstdint>
#include <memory>

#include "core/graph/op_kernel.hpp"
#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

class WeightPacks;

// Session-wide: fixed when the session is created.
struct OptimizedConfig {
  Isa isa = Isa::Scalar;
  ThreadPool* pool = nullptr;  // owned by the engine, outlives every kernel
  // Packed weights shared by the engine's nodes (weight_packs.hpp); owned by the engine, outlives
  // every kernel. nullptr: every kernel packs its own.
  WeightPacks* packs = nullptr;
};

class OptimizedKernel : public OpKernel {
 public:
  // Builds the node's reference kernel (which parses and checks the attributes) and copies its
  // flags. Throws what the reference factory throws.
  OptimizedKernel(const NodeInfo& node, const OptimizedConfig& config);

  // The reference's infer(). A kernel with accepts_compact_weights shows a compact input 1 to it
  // as the binary32 tensor it stands for (type F32, shape kept, no value), so a compact weight is
  // shaped exactly as its binary32 original (spec/session.md section 9).
  void infer(InferContext& context) const override;

  // The counting hook of the differential tests: how many times an override on this thread has
  // fallen back to its reference kernel (run_reference). A test reads it around one run to tell a
  // case the override served from one it handed to the reference, which compares that kernel
  // with itself. Every fallback of every override goes through run_reference.
  static std::uint64_t fallbacks_on_this_thread() noexcept;

 protected:
  const OpKernel& reference() const noexcept { return *reference_; }
  // The reference's run(); a compact input 1 (float16 or bfloat16 beside a binary32 input 0) is
  // first widened into run scratch, since reference kernels read binary32 (spec/half-precision.md
  // sections 3 and 5: exact, so the results are the binary32 model's).
  void run_reference(RunContext& context) const;
  // True when input 1 is a compact weight as run() sees it: float16 or bfloat16 beside binary32
  // input 0 in a kernel with accepts_compact_weights (infer() accepted only a compact one there).
  bool has_compact_weight(const RunContext& context) const;
  KernelContext kernel_context(const RunContext& context) const noexcept {
    return KernelContext{config_.isa, context.exact(), config_.pool};
  }
  const OptimizedConfig& config() const noexcept { return config_; }

 private:
  std::unique_ptr<OpKernel> reference_;
  OptimizedConfig config_;
};

using OptimizedFactory = std::unique_ptr<OpKernel> (*)(const NodeInfo& node, const OptimizedConfig& config);

// An override: the opset range must lie inside the reference definition's range.
struct OptimizedOpDef {
  const char* domain;  // "" for ai.onnx
  const char* op_type;
  int min_opset;
  int max_opset;
  OptimizedFactory factory;
};

// The override serving (domain, op_type, opset), or nullptr (then the reference kernel runs).
const OptimizedOpDef* find_optimized_op(std::string_view domain, std::string_view op_type, std::int64_t opset);
std::span<const OptimizedOpDef> all_optimized_ops();

}  // namespace onemodel::opt
