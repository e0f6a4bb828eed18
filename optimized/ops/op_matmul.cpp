// MatMul for float32 on the blocked matrix product (kernels-gemm.md; graph-runtime.md section 7:
// MatMul follows kernels-gemm.md). Shapes, types and errors are the reference's (infer() and
// products::matmul_shape, numpy.matmul rules: 1-D operands, broadcast batch axes). Every output is
// the exact-mode product of exact-mode.md "Matrix product", so exact mode gives the reference's
// bits on every path and thread count. Other element types run the reference kernel.
#include <memory>
#include <vector>

#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/ops/batch_entries.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/weight_packs.hpp"
#include "reference/ops/matmul_helpers.hpp"

namespace onemodel::opt {
namespace {

// What prepare() works out once per plan: the shape rules' result for the plan's input shapes
// (so run() allocates nothing for them, graph-runtime.md section 4) and, when B is constant,
// B packed, one PackedB per matrix of B's batch, shared with every other node packing the same
// matrix of the same constant (weight_packs.hpp). A compact B (spec/session.md section 9) is not
// packed here: a binary32 copy is what compaction saves; the product widens it as it packs.
struct MatMulPlan {
  Shape a_shape, b_shape;
  products::MatMulShape shape;
  std::vector<std::shared_ptr<const PackedB>> packed_b;  // empty: B is not constant
};

// The float32 elements of a tensor in row-major order: the tensor itself when contiguous, else
// a contiguous copy kept in `holder` (inputs of the optimized engine are normally contiguous).
const float* contiguous_f32(const Tensor& t, Tensor& holder) {
  if (t.element_count() == 0) return nullptr;
  if (t.is_contiguous()) return t.data<float>().data();
  holder = t.contiguous();
  return holder.data<float>().data();
}

// The 16-bit elements of a compact weight in row-major order (initializers are contiguous).
const std::uint16_t* contiguous_u16(const Tensor& t, Tensor& holder) {
  if (t.element_count() == 0) return nullptr;
  if (t.is_contiguous()) return t.data<std::uint16_t>().data();
  holder = t.contiguous();
  return holder.data<std::uint16_t>().data();
}

class MatMulOptimized final : public OptimizedKernel {
 public:
  MatMulOptimized(const NodeInfo& node, const OptimizedConfig& config) : OptimizedKernel(node, config) {
    accepts_compact_weights = true;
  }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    const bool compact_b = context.input_compact(1);
    if (context.input_type(0) != DType::F32 || (context.input_type(1) != DType::F32 && !compact_b)) return nullptr;
    auto plan = std::make_shared<MatMulPlan>();
    plan->a_shape = context.input_shape(0);
    plan->b_shape = context.input_shape(1);
    plan->shape = products::matmul_shape(context.node(), plan->a_shape, plan->b_shape);
    const products::MatMulShape& s = plan->shape;
    const Tensor* b = context.input_value(1);
    if (b != nullptr && !compact_b && s.k > 0 && s.n > 0) {
      Tensor holder;
      const float* data = contiguous_f32(*b, holder);
      const Tensor& source = holder.defined() ? holder : *b;
      const std::int64_t count = b->element_count() / (s.k * s.n);
      const auto k = static_cast<std::size_t>(s.k), n = static_cast<std::size_t>(s.n);
      plan->packed_b.reserve(static_cast<std::size_t>(count));
      for (std::int64_t i = 0; i < count; ++i) {
        const MatrixView view{data + i * s.k * s.n, static_cast<std::ptrdiff_t>(s.n), 1};
        const PackOrigin origin{&source, view.data, view.row_stride, view.col_stride, PackSource::Float32};
        plan->packed_b.push_back(shared_packed_b(config().packs, config().isa, k, n, origin,
                                                 [&] { return pack_b_f32(config().isa, k, n, view); }));
      }
    }
    return plan;
  }

  void run(RunContext& context) const override {
    const Tensor& a_t = context.input(0);
    const Tensor& b_t = context.input(1);
    const bool compact_b = has_compact_weight(context);
    if (a_t.dtype() != DType::F32 || (b_t.dtype() != DType::F32 && !compact_b)) {
      run_reference(context);
      return;
    }
    // The plan's shape rules when the shapes are the plan's (always, in the optimized engine);
    // else worked out now.
    const auto* plan = static_cast<const MatMulPlan*>(context.state());
    if (plan != nullptr && !(plan->a_shape == a_t.shape() && plan->b_shape == b_t.shape())) plan = nullptr;
    products::MatMulShape computed;
    if (plan == nullptr) computed = products::matmul_shape(context.node(), a_t.shape(), b_t.shape());
    const products::MatMulShape& s = plan != nullptr ? plan->shape : computed;
    const std::vector<std::shared_ptr<const PackedB>>* packed =
        plan != nullptr && !plan->packed_b.empty() ? &plan->packed_b : nullptr;
    const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n),
                      k = static_cast<std::size_t>(s.k);
    const std::int64_t batches = s.batch.element_count();
    if (batches == 0 || m == 0 || n == 0) return;
    Tensor a_holder, b_holder;
    const float* a = contiguous_f32(a_t, a_holder);
    const float* b = compact_b ? nullptr : contiguous_f32(b_t, b_holder);
    const std::uint16_t* b_half = compact_b ? contiguous_u16(b_t, b_holder) : nullptr;
    const HalfFormat format = b_t.dtype() == DType::F16 ? HalfFormat::Binary16 : HalfFormat::BFloat16;
    float* c = context.output(0).mutable_data<float>().data();
    const KernelContext kc = kernel_context(context);

    // One product of batch entry bi (products::batch_offsets, as the reference walks them).
    auto product = [&](const KernelContext& on, std::int64_t bi, std::size_t rows) {
      std::int64_t a_off = 0, b_off = 0;
      products::batch_offsets(s, bi, a_off, b_off);
      const MatrixView a_view{a == nullptr ? nullptr : a + a_off * s.m * s.k, static_cast<std::ptrdiff_t>(k), 1};
      float* c_batch = c + bi * s.m * s.n;
      if (packed != nullptr) {
        gemm_f32_packed(on, rows, a_view, *(*packed)[static_cast<std::size_t>(b_off)], c_batch,
                        static_cast<std::ptrdiff_t>(n));
      } else if (b_half != nullptr) {
        // A compact B, widened strip by strip as the product packs it (gemm_half.hpp).
        const HalfMatrixView b_view{b_half + b_off * s.k * s.n, static_cast<std::ptrdiff_t>(n), 1, format, on.isa};
        const BStripSource source = half_b_source(b_view);
        gemm_f32_sourced(on, rows, n, k, nullptr, a_view, &source, MatrixView{}, c_batch, static_cast<std::ptrdiff_t>(n));
      } else {
        const MatrixView b_view{b == nullptr ? nullptr : b + b_off * s.k * s.n, static_cast<std::ptrdiff_t>(n), 1};
        gemm_f32(on, rows, n, k, a_view, b_view, c_batch, static_cast<std::ptrdiff_t>(n));
      }
    };

    if (batches == 1 || a_batches_are_rows(s)) {
      // Every batch entry uses B's only matrix and A's entries follow each other: the batch is
      // one product of batches * m rows (each output is still its own dot product).
      product(kc, 0, static_cast<std::size_t>(batches) * m);
      return;
    }
    const double per_entry_ns = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / 40.0;
    run_batch_entries(kc, batches, per_entry_ns,
                      [&](const KernelContext& on, std::int64_t bi) { product(on, bi, m); });
  }

 private:
  // True when B has one matrix for every batch entry and A's matrix of entry bi is the bi-th.
  static bool a_batches_are_rows(const products::MatMulShape& s) {
    std::int64_t natural = 1;
    for (int i = s.batch.rank(); i-- > 0;) {
      const std::size_t axis = static_cast<std::size_t>(i);
      if (s.b_batch_strides[axis] != 0) return false;
      if (s.batch[i] != 1 && s.a_batch_strides[axis] != natural) return false;
      natural *= s.batch[i];
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_matmul_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<MatMulOptimized>(node, config);
}

}  // namespace onemodel::opt
