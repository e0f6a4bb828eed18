// DequantizeLinear in the optimized engine (int8.md "Operators": y = float(x - zp) * scale in
// binary32): the reference's arithmetic element by element (the difference exact in 64 bits,
// converted once to binary32, one binary32 multiplication), read straight from the input's bytes
// and cut into fixed chunks of kChunk elements over the pool, so the bits are the reference's on
// every thread count. Served: per-tensor and per-axis scales of type float32 with a float32 output;
// blocked scales, 16-bit float scales or outputs run the reference kernel.
#include <cstring>
#include <memory>
#include <optional>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "core/util/inline_list.hpp"
#include "onemodel/tensor_error.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/element_reader.hpp"
#include "reference/ops/quant_helpers.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunk = 16384;

// Element i of an integer tensor's bytes as int64.
inline std::int64_t integer_at(const std::byte* data, DType type, std::size_t i) {
  switch (type) {
    case DType::U8: return static_cast<std::int64_t>(std::to_integer<std::uint8_t>(data[i]));
    case DType::I8: return static_cast<std::int64_t>(static_cast<std::int8_t>(std::to_integer<std::uint8_t>(data[i])));
    case DType::U16: {
      std::uint16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      return v;
    }
    case DType::I16: {
      std::int16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      return v;
    }
    default: {
      std::int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      return v;
    }
  }
}

class DequantizeLinearOptimized final : public OptimizedKernel {
 public:
  DequantizeLinearOptimized(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        opset_(node.opset()),
        axis_(node.opset() >= 13 ? node.get_int("axis", 1) : 1),
        block_size_(node.opset() >= 21 ? node.get_int("block_size", 0) : 0) {}

  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Tensor& s_t = context.input(1);
    const Tensor& out = context.output(0);
    // 8-bit float inputs (reference/ops/quant_float8.hpp) and sub-byte inputs (one element per
    // byte, spec/tensors.md section 2.1) run the reference.
    if (block_size_ != 0 || s_t.dtype() != DType::F32 || out.dtype() != DType::F32 || dtype_is_float8(x_t.dtype()) ||
        dtype_is_subbyte(x_t.dtype())) {
      run_reference(context);
      return;
    }
    const quant::ScaleLayout layout =
        quant::resolve_layout(context.node(), x_t.shape(), s_t.shape(), axis_, block_size_, opset_ >= 13);
    const Tensor x = x_t.contiguous();
    // The scales (float32 here) and zero points, read in place up to 16 of each (a warm run
    // allocates nothing, graph-runtime.md section 4); the values quant::floats_of and
    // quant::integers_of give.
    InlineList<float, 16> scale(static_cast<std::size_t>(s_t.element_count()));
    ::onemodel::ew::ElementReader<float> scale_reader(s_t, s_t.shape());
    for (float& v : scale) v = scale_reader.next();
    InlineList<std::int64_t, 16> zp(scale.size());
    if (context.has_input(2)) {
      const Tensor& z = context.input(2);
      zp = InlineList<std::int64_t, 16>(static_cast<std::size_t>(z.element_count()));
      const auto read = [&](auto tag) {
        ::onemodel::ew::ElementReader<decltype(tag)> reader(z, z.shape());
        for (std::int64_t& v : zp) v = reader.next();
      };
      switch (z.dtype()) {
        case DType::U8: read(std::uint8_t{}); break;
        case DType::I8: read(std::int8_t{}); break;
        case DType::U16: read(std::uint16_t{}); break;
        case DType::I16: read(std::int16_t{}); break;
        case DType::I32: read(std::int32_t{}); break;
        default: throw TensorError(TensorErrorKind::Type, "not a quantized integer tensor");
      }
    }
    const std::size_t count = static_cast<std::size_t>(x.element_count());
    if (count == 0) return;
    const std::byte* in = tensor_bytes(x).data();
    float* y = out.mutable_data<float>().data();
    const DType type = x.dtype();
    const std::size_t chunks = (count + kChunk - 1) / kChunk;
    kernel_context(context).parallel_for(chunks, static_cast<double>(count) * 0.5, [&](std::size_t c) {
      const std::size_t end = std::min(count, (c + 1) * kChunk);
      for (std::size_t i = c * kChunk; i < end; ++i) {
        const auto k = static_cast<std::size_t>(layout.index(static_cast<std::int64_t>(i)));
        const float d = static_cast<float>(integer_at(in, type, i) - zp[k]);
        // The reference's store: one rounding to binary32 (exact here), a NaN made the canonical
        // 0x7FC00000 in both modes (quant::round_to, spec/exact-mode.md rule 4).
        y[i] = quant::round_to(DType::F32, d * scale[k]);
      }
    });
  }

 private:
  std::int64_t opset_;
  std::int64_t axis_;
  std::int64_t block_size_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dequantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<DequantizeLinearOptimized>(node, config);
}

}  // namespace onemodel::opt
