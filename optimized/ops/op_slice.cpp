// Slice (spec/ops/shape-indexing.md section 3): the view is formed by the reference's own rules and
// checks (reference/ops/slice_view.hpp: clamping, end sentinels, step 0, repeated axes, every
// refusal), then copied by optimized/kernels/datamove/view_copy.hpp (inner runs of stride 1 by
// memcpy, other steps by strided loops) instead of the reference's element-wise copy_to. Bytes
// only: the reference's result for every element type. A non-contiguous input runs the reference.
#include <array>
#include <memory>
#include <optional>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/datamove/view_copy.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/slice_view.hpp"

namespace onemodel::opt {
namespace {

class SliceOverride final : public OptimizedKernel {
 public:
  SliceOverride(const NodeInfo& node, const OptimizedConfig& config) : OptimizedKernel(node, config) {
    // Slice_1 (opsets 1-9) reads its attributes as the reference's factory does (which has
    // already refused missing starts or ends).
    if (node.opset() < 10) {
      shape_ops::SliceSpec spec;
      spec.starts = node.get_ints("starts");
      spec.ends = node.get_ints("ends");
      spec.axes = node.get_ints("axes");
      attribute_spec_ = std::move(spec);
    }
  }

  void run(RunContext& context) const override {
    const Tensor& in = context.input(0);
    // STRING elements are not bytes (spec/tensors.md section 8): the reference assigns them.
    if (!in.is_contiguous() || in.dtype() == DType::String) return run_reference(context);
    const NodeInfo& node = context.node();
    shape_ops::SliceInputs inputs;
    shape_ops::SliceArgs spec;
    if (attribute_spec_) {
      spec = shape_ops::args_of(*attribute_spec_);
    } else {
      shape_ops::read_slice_inputs(node, inputs, [&](std::size_t i) {
        return context.has_input(i) ? &context.input(i) : nullptr;
      });
      spec = inputs.args();
    }
    const Tensor view = shape_ops::slice_view(node, in, spec);
    const Tensor& out = context.output(0);
    if (view.shape() != out.shape()) return run_reference(context);  // infer() and run() disagree: let it report
    if (out.element_count() == 0) return;
    const std::size_t esize = dtype_size(in.dtype());
    // A view shares its source's allocation: its element (0, ..., 0) sits offset() - in.offset()
    // elements from the input's first element; slice() and flip() checked that every element it
    // reaches lies inside the allocation (spec/tensors.md section 4).
    const std::byte* origin = tensor_bytes(in).data() + (view.offset() - in.offset()) * static_cast<std::int64_t>(esize);
    const int rank = view.rank();
    std::array<std::int64_t, datamove::kMaxAxes> extents{};
    std::array<std::int64_t, datamove::kMaxAxes> strides{};
    if (rank > datamove::kMaxAxes) return run_reference(context);
    for (int d = 0; d < rank; ++d) {
      extents[static_cast<std::size_t>(d)] = view.shape()[d];
      strides[static_cast<std::size_t>(d)] = view.strides()[static_cast<std::size_t>(d)];
    }
    const auto n = static_cast<std::size_t>(rank);
    if (!datamove::copy_view(kernel_context(context), esize, origin, std::span<const std::int64_t>(extents.data(), n),
                             std::span<const std::int64_t>(strides.data(), n), mutable_tensor_bytes(out).data())) {
      run_reference(context);
    }
  }

 private:
  std::optional<shape_ops::SliceSpec> attribute_spec_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_slice(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<SliceOverride>(node, config);
}

}  // namespace onemodel::opt
