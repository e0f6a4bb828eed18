// Transpose: output axis i is input axis perm[i], perm defaulting to the reversed axes
// (spec/ops/shape-indexing.md section 2), by the blocked copy of optimized/kernels/transpose/.
// Only bytes move, so the result is the reference's (reference/ops/op_transpose.cpp) for every
// element type. A strided input view or an odd element width runs the reference.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/transpose/transpose.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {
namespace {

class TransposeOverride final : public OptimizedKernel {
 public:
  TransposeOverride(const NodeInfo& node, const OptimizedConfig& config) : OptimizedKernel(node, config) {
    if (node.has("perm")) perm_ = node.get_ints("perm");
  }

  void run(RunContext& context) const override {
    const Tensor& in = context.input(0);
    const int rank = in.shape().rank();
    // STRING elements are not bytes (spec/tensors.md section 8): the reference assigns them.
    if (!in.is_contiguous() || rank > tr::kMaxRank || in.dtype() == DType::String) return run_reference(context);
    // The order as the reference forms it; infer() has already refused a malformed perm, so a
    // mismatch here only sends the node to the reference, which reports it.
    int order[tr::kMaxRank];
    if (!perm_) {
      for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    } else {
      if (static_cast<int>(perm_->size()) != rank) return run_reference(context);
      unsigned seen = 0;
      for (int i = 0; i < rank; ++i) {
        std::int64_t axis = (*perm_)[static_cast<std::size_t>(i)];
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank || (seen & (1u << axis))) return run_reference(context);
        seen |= 1u << axis;
        order[i] = static_cast<int>(axis);
      }
    }
    const Tensor& out = context.output(0);
    if (out.element_count() == 0) return;
    const auto src = tensor_bytes(in);
    const auto dst = mutable_tensor_bytes(out);
    if (!tr::transpose(kernel_context(context), dtype_size(in.dtype()), src.data(), in.shape().extents(),
                       std::span<const int>(order, static_cast<std::size_t>(rank)), dst.data())) {
      run_reference(context);
    }
  }

 private:
  std::optional<std::vector<std::int64_t>> perm_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_transpose(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<TransposeOverride>(node, config);
}

}  // namespace onemodel::opt
