// Concat (spec/ops/shape-indexing.md section 2): contiguous inputs of any element type copied in
// blocks straight into the output (optimized/kernels/concat/concat.hpp), without the reference's
// per-input contiguous() copies. Views and more than kMaxInputs inputs run the reference kernel.
#include <memory>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/concat/concat.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kMaxInputs = 64;  // the block list lives on the stack (no allocation per run)

class ConcatOverride final : public OptimizedKernel {
 public:
  ConcatOverride(const NodeInfo& node, const OptimizedConfig& config)
      // The axis as the reference's factory reads it (default 1 before opset 4, required after).
      : OptimizedKernel(node, config), axis_(node.get_int("axis", node.opset() < 4 ? 1 : 0)) {}

  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const std::size_t count = context.input_count();
    // STRING (spec/tensors.md section 8) runs the reference kernel, which assigns strings.
    if (count == 0 || count > kMaxInputs || out.dtype() == DType::String) return run_reference(context);
    for (std::size_t i = 0; i < count; ++i) {
      if (!context.has_input(i) || !context.input(i).is_contiguous() || context.input(i).dtype() != out.dtype() ||
          context.input(i).shape().rank() != out.rank()) {
        return run_reference(context);
      }
    }
    const int axis = shape_ops::normalize_axis(context.node(), axis_, out.rank());
    const std::size_t esize = dtype_size(out.dtype());
    std::size_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(out.shape()[d]);
    std::size_t inner = 1;
    for (int d = axis + 1; d < out.rank(); ++d) inner *= static_cast<std::size_t>(out.shape()[d]);
    if (outer == 0 || inner == 0) return;  // nothing to write
    concat::ConcatInput inputs[kMaxInputs];
    for (std::size_t i = 0; i < count; ++i) {
      const Tensor& in = context.input(i);
      inputs[i].block = static_cast<std::size_t>(in.shape()[axis]) * inner * esize;
      inputs[i].data = inputs[i].block == 0 ? nullptr : tensor_bytes(in).data();
    }
    if (out.element_count() == 0) return;
    concat::concat_bytes(kernel_context(context), inputs, count, outer, mutable_tensor_bytes(out).data());
  }

 private:
  std::int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_concat(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ConcatOverride>(node, config);
}

}  // namespace onemodel::opt
