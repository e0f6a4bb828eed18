// QuantizeLinear in the optimized engine (spec/ops/quantization.md section 4, int8.md
// "Operators": y = saturate(round_half_even(x / scale) + zp), one binary32 division, NaN to the
// type's smallest value): the vector kernels of optimized/kernels/quantize over fixed chunks of
// kQuantizeChunk elements on the pool, each element computed alone, so the bits are the reference's on
// every path and thread count. Served: float32 x and float32 scales (division precision float32),
// per tensor or per axis, uint8/int8/uint16/int16 outputs. Blocked scales, float16/bfloat16/int32
// x or scales and a float16/bfloat16 `precision` run the reference kernel.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "optimized/kernels/quantize/quantize.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/quant_helpers.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kQuantizeChunk = 16384;

bool quantize_out_of(DType type, quantize::Out& out) noexcept {
  switch (type) {
    case DType::U8: out = quantize::Out::U8; return true;
    case DType::I8: out = quantize::Out::I8; return true;
    case DType::U16: out = quantize::Out::U16; return true;
    case DType::I16: out = quantize::Out::I16; return true;
    default: return false;
  }
}

// The scales (rounded to the division's type) and zero points as the vector kernels read them.
// Made once per plan when both are constants (a warm run then allocates nothing, graph-runtime.md
// section 4), else per call. False when the zero points do not match the scales (infer() checked
// the shapes; the reference kernel then runs, never indexing past either).
struct QuantizeOperands {
  std::vector<float> scale;
  std::vector<float> zero;
};

bool quantize_operands(const Tensor& s_t, const Tensor* zp_t, QuantizeOperands& out) {
  out.scale = quant::floats_of(s_t);
  // The reference rounds the scale to the division's type (binary32: only a NaN changes, and a
  // NaN quotient gives the smallest value whatever its payload).
  for (float& s : out.scale) s = quant::round_to(DType::F32, s);
  out.zero.assign(out.scale.size(), 0.0f);
  if (zp_t == nullptr) return true;
  const std::vector<std::int64_t> zp = quant::integers_of(*zp_t);
  if (zp.size() != out.scale.size()) return false;
  // |zp| <= 65535 (a zero point has the output's type): exact in binary32.
  for (std::size_t k = 0; k < zp.size(); ++k) out.zero[k] = static_cast<float>(zp[k]);
  return true;
}

class QuantizeLinearOptimized final : public OptimizedKernel {
 public:
  QuantizeLinearOptimized(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        opset_(node.opset()),
        axis_(node.opset() >= 13 ? node.get_int("axis", 1) : 1),
        block_size_(node.opset() >= 21 ? node.get_int("block_size", 0) : 0),
        precision_(node.opset() >= 23 ? node.get_int("precision", 0) : 0) {}

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    const Tensor* s_t = context.known_value(1);
    if (s_t == nullptr || s_t->dtype() != DType::F32) return nullptr;
    const Tensor* zp_t = nullptr;
    if (context.has_input(2)) {
      zp_t = context.known_value(2);
      // 8-bit float zero points and sub-byte outputs: run() gives the node to the reference
      // (quantize_out_of), which needs no operands.
      if (zp_t == nullptr || dtype_is_float8(zp_t->dtype()) || dtype_is_subbyte(zp_t->dtype())) return nullptr;
    }
    auto operands = std::make_shared<QuantizeOperands>();
    if (!quantize_operands(*s_t, zp_t, *operands)) return nullptr;
    return operands;
  }

  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Tensor& s_t = context.input(1);
    const Tensor& y_t = context.output(0);
    quantize::Out out{};
    // precision 0 (the scale's type) or 1 (float) divides in binary32.
    if (block_size_ != 0 || x_t.dtype() != DType::F32 || s_t.dtype() != DType::F32 ||
        (precision_ != 0 && precision_ != 1) || !quantize_out_of(y_t.dtype(), out)) {
      run_reference(context);
      return;
    }
    const quant::ScaleLayout layout =
        quant::resolve_layout(context.node(), x_t.shape(), s_t.shape(), axis_, block_size_, opset_ >= 13);
    // The plan's operands when the scales and zero points are constants, else this call's.
    const auto* planned = static_cast<const QuantizeOperands*>(context.state());
    QuantizeOperands local;
    if (planned == nullptr) {
      if (!quantize_operands(s_t, context.has_input(2) ? &context.input(2) : nullptr, local)) {
        run_reference(context);
        return;
      }
      planned = &local;
    }
    const std::vector<float>& scale = planned->scale;
    const std::vector<float>& zero = planned->zero;
    const std::size_t per_axis = layout.kind == quant::ScaleLayout::Kind::PerAxis ? scale.size() : 1;
    const auto extent = static_cast<std::size_t>(layout.extent);
    const auto inner = static_cast<std::size_t>(layout.inner);
    if (per_axis != 1 && per_axis != extent) {
      run_reference(context);
      return;
    }
    const Tensor x = x_t.contiguous();
    const std::size_t count = static_cast<std::size_t>(x.element_count());
    if (count == 0) return;
    const float* in = x.data<float>().data();
    std::byte* y = mutable_tensor_bytes(y_t).data();
    const std::size_t bytes = dtype_size(y_t.dtype());
    const KernelContext kc = kernel_context(context);
    const std::size_t chunks = (count + kQuantizeChunk - 1) / kQuantizeChunk;
    kc.parallel_for(chunks, static_cast<double>(count) * 0.5, [&](std::size_t c) {
      const std::size_t end = std::min(count, (c + 1) * kQuantizeChunk);
      std::size_t i = c * kQuantizeChunk;
      while (i < end) {
        quantize::Run r;
        r.x = in + i;
        r.y = y + i * bytes;
        r.out = out;
        if (per_axis == 1) {
          r.n = end - i;
          r.scale = scale.data();
          r.zero_point = zero.data();
        } else if (inner == 1) {
          // The axis is the last one: consecutive elements take consecutive scales.
          const std::size_t k = i % extent;
          r.n = std::min(end - i, extent - k);
          r.scale = scale.data() + k;
          r.zero_point = zero.data() + k;
          r.per_lane = true;
        } else {
          // A run of `inner` elements shares scale k (spec/ops/quantization.md section 2).
          const std::size_t k = (i / inner) % extent;
          r.n = std::min(end - i, inner - i % inner);
          r.scale = scale.data() + k;
          r.zero_point = zero.data() + k;
        }
        quantize::quantize_run(kc.isa, r);
        i += r.n;
      }
    });
  }

 private:
  std::int64_t opset_;
  std::int64_t axis_;
  std::int64_t block_size_;
  std::int64_t precision_;
};

}  // namespace

std::unique_ptr<OpKernel> make_quantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<QuantizeLinearOptimized>(node, config);
}

}  // namespace onemodel::opt
