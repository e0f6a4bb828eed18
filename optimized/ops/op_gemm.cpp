// Gemm for float32 on the blocked matrix product: Y = alpha * A' * B' + beta * C
// (spec/ops/products-conv.md section 5; graph-runtime.md section 7). A' and B' are strided views
// of A and B (transA, transB), so nothing is transposed in memory. The product is the exact-mode
// product of exact-mode.md "Matrix product"; the epilogue, run once per finished tile, is the
// reference's: t = alpha * acc, then y = t + beta * C, each rounded on its own and never fused
// in either mode, and in exact mode every NaN stored is 0x7FC00000 (exact-mode.md rule 4). C
// broadcasts one way to [M, N]; with beta = 0 C is not read and y = t, as in the reference (section
// 5). Other element types run the reference kernel.
#include <cmath>
#include <cstring>
#include <memory>

#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/weight_packs.hpp"

namespace onemodel::opt {
namespace {

const float* contiguous_f32(const Tensor& t, Tensor& holder) {
  if (t.element_count() == 0) return nullptr;
  if (t.is_contiguous()) return t.data<float>().data();
  holder = t.contiguous();
  return holder.data<float>().data();
}

// What the epilogue needs: the scalars and C with its broadcast (cm or cn of 1 repeats it).
struct GemmScaling {
  float alpha = 1.0f;
  float beta = 1.0f;
  const float* c = nullptr;  // nullptr: no C
  std::size_t cm = 0, cn = 0;
  bool exact = false;
};

void scale_tile(const void* state, float* y, std::ptrdiff_t ldy, std::size_t row, std::size_t col, std::size_t rows,
                std::size_t cols) {
  const GemmScaling& s = *static_cast<const GemmScaling*>(state);
  const float alpha = s.alpha, beta = s.beta;
  constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;
  float canonical;
  std::memcpy(&canonical, &kCanonicalNanBits, sizeof canonical);
  for (std::size_t r = 0; r < rows; ++r) {
    float* out = y + static_cast<std::ptrdiff_t>(r) * ldy;
    const std::size_t i = row + r;
    if (s.c == nullptr) {
      for (std::size_t j = 0; j < cols; ++j) out[j] = alpha * out[j];
    } else {
      const float* c_row = s.c + (s.cm == 1 ? 0 : i) * s.cn;
      if (s.cn == 1) {
        const float scaled_c = beta * c_row[0];
        for (std::size_t j = 0; j < cols; ++j) {
          const float t = alpha * out[j];
          out[j] = t + scaled_c;
        }
      } else {
        for (std::size_t j = 0; j < cols; ++j) {
          const float t = alpha * out[j];
          const float scaled_c = beta * c_row[col + j];
          out[j] = t + scaled_c;
        }
      }
    }
    if (s.exact) {
      for (std::size_t j = 0; j < cols; ++j) out[j] = std::isnan(out[j]) ? canonical : out[j];
    }
  }
}

class GemmOptimized final : public OptimizedKernel {
 public:
  GemmOptimized(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        alpha_(node.get_float("alpha", 1.0f)),
        beta_(node.get_float("beta", 1.0f)),
        trans_a_(node.get_int("transA", 0) != 0),
        trans_b_(node.get_int("transB", 0) != 0) {
    accepts_compact_weights = true;
  }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    const Tensor* b = context.input_value(1);
    // A compact B (spec/session.md section 9) is never packed whole in binary32: run() widens it
    // strip by strip inside the product's packing.
    if (b == nullptr || context.input_type(0) != DType::F32 || b->dtype() != DType::F32 || b->rank() != 2) {
      return nullptr;
    }
    const std::int64_t k = trans_b_ ? b->shape()[1] : b->shape()[0];
    const std::int64_t n = trans_b_ ? b->shape()[0] : b->shape()[1];
    if (k == 0 || n == 0) return nullptr;
    Tensor holder;
    const float* data = contiguous_f32(*b, holder);
    // Shared with every other node packing the same matrix the same way (weight_packs.hpp).
    const MatrixView view = b_view(data, k, n);
    const PackOrigin origin{holder.defined() ? &holder : b, view.data, view.row_stride, view.col_stride,
                            PackSource::Float32};
    const auto uk = static_cast<std::size_t>(k), un = static_cast<std::size_t>(n);
    return shared_packed_b(config().packs, config().isa, uk, un, origin,
                           [&] { return pack_b_f32(config().isa, uk, un, view); });
  }

  void run(RunContext& context) const override {
    const Tensor& a_t = context.input(0);
    const Tensor& b_t = context.input(1);
    const bool has_c = context.has_input(2);
    const bool compact_b = has_compact_weight(context);
    if (a_t.dtype() != DType::F32 || (b_t.dtype() != DType::F32 && !compact_b) ||
        (has_c && context.input(2).dtype() != DType::F32)) {
      run_reference(context);
      return;
    }
    const std::int64_t m = trans_a_ ? a_t.shape()[1] : a_t.shape()[0];
    const std::int64_t k = trans_a_ ? a_t.shape()[0] : a_t.shape()[1];
    const std::int64_t n = trans_b_ ? b_t.shape()[0] : b_t.shape()[1];
    if (m == 0 || n == 0) return;
    Tensor a_holder, b_holder, c_holder;
    const float* a = contiguous_f32(a_t, a_holder);
    GemmScaling scaling;
    scaling.alpha = alpha_;
    scaling.beta = beta_;
    scaling.exact = context.exact();
    if (has_c && beta_ != 0.0f) {  // beta = 0: C is not read (products-conv.md section 5)
      const Tensor& c_t = context.input(2);
      scaling.c = contiguous_f32(c_t, c_holder);
      scaling.cm = static_cast<std::size_t>(c_t.rank() == 2 ? c_t.shape()[0] : 1);
      scaling.cn = static_cast<std::size_t>(c_t.rank() >= 1 ? c_t.shape()[c_t.rank() - 1] : 1);
    }
    float* y = context.output(0).mutable_data<float>().data();
    // Element (i, p) of A' is A[p][i] when transA: row stride 1, column stride m.
    const MatrixView a_view = trans_a_ ? MatrixView{a, 1, static_cast<std::ptrdiff_t>(m)}
                                       : MatrixView{a, static_cast<std::ptrdiff_t>(k), 1};
    const GemmEpilogue epilogue{scale_tile, &scaling};
    const KernelContext kc = kernel_context(context);
    const auto* packed = static_cast<const PackedB*>(context.state());
    if (packed != nullptr && packed->k() == static_cast<std::size_t>(k) && packed->n() == static_cast<std::size_t>(n)) {
      gemm_f32_packed(kc, static_cast<std::size_t>(m), a_view, *packed, y, static_cast<std::ptrdiff_t>(n), &epilogue);
      return;
    }
    if (compact_b) {
      const Tensor dense = b_t.contiguous();
      const std::uint16_t* bits = dense.data<std::uint16_t>().data();
      const HalfFormat format = b_t.dtype() == DType::F16 ? HalfFormat::Binary16 : HalfFormat::BFloat16;
      // Element (p, j) of B' as b_view reads it, from the 16-bit elements.
      const HalfMatrixView half = trans_b_ ? HalfMatrixView{bits, 1, static_cast<std::ptrdiff_t>(k), format, kc.isa}
                                           : HalfMatrixView{bits, static_cast<std::ptrdiff_t>(n), 1, format, kc.isa};
      const BStripSource source = half_b_source(half);
      gemm_f32_sourced(kc, static_cast<std::size_t>(m), static_cast<std::size_t>(n), static_cast<std::size_t>(k),
                       nullptr, a_view, &source, MatrixView{}, y, static_cast<std::ptrdiff_t>(n), &epilogue);
      return;
    }
    const float* b = contiguous_f32(b_t, b_holder);
    gemm_f32(kc, static_cast<std::size_t>(m), static_cast<std::size_t>(n), static_cast<std::size_t>(k), a_view,
             b_view(b, k, n), y, static_cast<std::ptrdiff_t>(n), &epilogue);
  }

 private:
  // Element (p, j) of B' is B[j][p] when transB: row stride 1, column stride k.
  MatrixView b_view(const float* b, std::int64_t k, std::int64_t n) const {
    return trans_b_ ? MatrixView{b, 1, static_cast<std::ptrdiff_t>(k)} : MatrixView{b, static_cast<std::ptrdiff_t>(n), 1};
  }

  float alpha_, beta_;
  bool trans_a_, trans_b_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gemm_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<GemmOptimized>(node, config);
}

}  // namespace onemodel::opt
