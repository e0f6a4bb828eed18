// DynamicQuantizeLinear in the optimized engine (spec/ops/quantization.md section 6, int8.md
// "Operators"): the NaN-skipping min/max of x on the vector kernels, chunk by chunk over the pool
// (fixed chunks of kDynamicChunk elements, folded in chunk order with strict comparisons: min and max are
// exact and a -0 never replaces the starting +0, so lo and hi are the reference's on any path and
// thread count); the scale and zero point from the reference's own helper (quant::dynamic_params);
// then QuantizeLinear's vector kernel to uint8 with that scale and zero point.
#include <algorithm>
#include <memory>
#include <vector>

#include "optimized/kernels/quantize/quantize.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/dynamic_quant_params.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kDynamicChunk = 16384;

class DynamicQuantizeLinearOptimized final : public OptimizedKernel {
 public:
  DynamicQuantizeLinearOptimized(const NodeInfo& node, const OptimizedConfig& config) : OptimizedKernel(node, config) {}

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const std::size_t count = static_cast<std::size_t>(x.element_count());
    const float* in = count == 0 ? nullptr : x.data<float>().data();
    const KernelContext kc = kernel_context(context);
    const std::size_t chunks = (count + kDynamicChunk - 1) / kDynamicChunk;
    // Each chunk's minimum and maximum (lo, hi pairs) on run scratch: a warm run allocates nothing.
    const Tensor parts_t = context.scratch(DType::F32, Shape{static_cast<std::int64_t>(2 * chunks)});
    float* const parts = chunks == 0 ? nullptr : parts_t.mutable_data<float>().data();
    kc.parallel_for(chunks, static_cast<double>(count) * 0.2, [&](std::size_t c) {
      const std::size_t begin = c * kDynamicChunk;
      const quantize::MinMax p = quantize::min_max(kc.isa, in + begin, std::min(count, begin + kDynamicChunk) - begin);
      parts[2 * c] = p.lo;
      parts[2 * c + 1] = p.hi;
    });
    quantize::MinMax m;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (parts[2 * c] < m.lo) m.lo = parts[2 * c];
      if (parts[2 * c + 1] > m.hi) m.hi = parts[2 * c + 1];
    }
    const quant::DynamicParams params = quant::dynamic_params(m.lo, m.hi);
    const float scale = params.scale;
    const float zero = static_cast<float>(params.zero_point);  // 0..255: exact
    if (count != 0) {
      auto* y = context.output(0).mutable_data<std::uint8_t>().data();
      kc.parallel_for(chunks, static_cast<double>(count) * 0.5, [&](std::size_t c) {
        quantize::Run r;
        r.x = in + c * kDynamicChunk;
        r.y = y + c * kDynamicChunk;
        r.n = std::min(count, (c + 1) * kDynamicChunk) - c * kDynamicChunk;
        r.scale = &scale;
        r.zero_point = &zero;
        r.out = quantize::Out::U8;
        quantize::quantize_run(kc.isa, r);
      });
    }
    // The reference's stores of the two scalars.
    if (context.output_wanted(1)) context.output(1).mutable_data<float>()[0] = canonical_nan_f32(scale);
    if (context.output_wanted(2)) {
      context.output(2).mutable_data<std::uint8_t>()[0] = static_cast<std::uint8_t>(params.zero_point);
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_dynamic_quantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<DynamicQuantizeLinearOptimized>(node, config);
}

}  // namespace onemodel::opt
