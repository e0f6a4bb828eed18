// TransposedMatMulOp, the node the `matmul-transpose` pass makes (docs/design.md "Transposed
// product operands"; spec/optimized-engine.md section 2): a float32 MatMul one or both of whose
// operands is a Transpose read by the MatMul alone (attention's K^T, the head-split Q and V) as one
// node reading the Transposes' inputs. The product reads each transposed operand through a strided
// view of its source (MatrixView's row and column strides and each batch entry's offset come from
// the permuted strides), so the Transpose's copy is never made.
//
// Why bits are kept (both modes): each output is the matrix product's dot product over k in the
// order kernels-gemm.md fixes for its path and mode, whatever the layout of A and B (packing only
// moves values; the order does not depend on the tile shape), so the values the product reads
// through the views give the bits the MatMul gives on the materialized Transposes.
//
// The node keeps the replaced kernels: infer() chains the Transposes' infer() and the MatMul's
// (their shapes, types and errors), and a run the strided path does not serve (an operand that is
// not float32, an operand of rank 1) runs the Transposes into scratch and then the MatMul.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

// One operand of the product: read as it is (no transpose) or through a Transpose's permutation.
struct TransposedOperand {
  std::unique_ptr<OpKernel> transpose;  // nullptr: the operand is read as it is
  std::optional<NodeInfo> info;         // the Transpose's (NodeInfo has no empty form)
  std::optional<std::vector<std::int64_t>> perm;  // the Transpose's perm; none: reversed axes
};

class TransposedMatMulOp final : public OpKernel {
 public:
  TransposedMatMulOp(std::unique_ptr<OpKernel> matmul, NodeInfo matmul_info, std::array<TransposedOperand, 2> operands,
                     const OptimizedConfig& config);

  void infer(InferContext& context) const override;
  std::shared_ptr<const void> prepare(const InferContext& context) const override;
  void run(RunContext& context) const override;

  bool transposes(std::size_t operand) const noexcept { return operands_[operand].transpose != nullptr; }

 private:
  void run_stages(RunContext& context) const;

  std::unique_ptr<OpKernel> matmul_;
  NodeInfo matmul_info_;
  std::array<TransposedOperand, 2> operands_;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
