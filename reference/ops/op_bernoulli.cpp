// Bernoulli (opset 15; spec/ops/random.md section 9): output element i is 1 when the uniform draw
// u_i (53 bits, section 4) is below the probability p_i, else 0, in `dtype` (the input's type when
// absent). Every p_i must be in [0, 1]; any other value (NaN included) is InvalidInput.
#include <cmath>
#include <cstring>
#include <string>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "onemodel/half.hpp"
#include "reference/ops/random_draws.hpp"

namespace onemodel {
namespace {

bool is_probability_type(DType t) noexcept {
  return t == DType::F32 || t == DType::F64 || t == DType::F16 || t == DType::BF16;
}

// ONNX Bernoulli's T2: the floating types, the integers and bool.
bool is_outcome_type(DType t) noexcept {
  switch (t) {
    case DType::F32: case DType::F64: case DType::F16: case DType::BF16:
    case DType::I8: case DType::I16: case DType::I32: case DType::I64:
    case DType::U8: case DType::U16: case DType::U32: case DType::U64:
    case DType::Bool:
      return true;
    default:
      return false;
  }
}

double probability(const Tensor& p, std::size_t i) {
  switch (p.dtype()) {
    case DType::F64: return p.data<double>()[i];
    case DType::F32: return p.data<float>()[i];
    case DType::F16: return half_bits_to_float(p.data<std::uint16_t>()[i]);
    default: return bfloat16_bits_to_float(p.data<std::uint16_t>()[i]);
  }
}

// Writes the outcome (0 or 1) as element i of `out`, whose element is `size` bytes.
void put_outcome(std::byte* out, DType type, std::size_t i, bool one) {
  std::byte* at = out + i * dtype_size(type);
  std::memset(at, 0, dtype_size(type));
  if (!one) return;
  switch (type) {
    case DType::F32: { const float v = 1.0f; std::memcpy(at, &v, sizeof v); break; }
    case DType::F64: { const double v = 1.0; std::memcpy(at, &v, sizeof v); break; }
    case DType::F16: { const std::uint16_t v = 0x3C00u; std::memcpy(at, &v, sizeof v); break; }
    case DType::BF16: { const std::uint16_t v = 0x3F80u; std::memcpy(at, &v, sizeof v); break; }
    default: at[0] = std::byte{1}; break;  // integers and bool, little-endian
  }
}

class Bernoulli final : public OpKernel {
 public:
  Bernoulli(bool has_seed, float seed, bool has_dtype, DType dtype)
      : has_seed_(has_seed), seed_(seed), has_dtype_(has_dtype), dtype_(dtype) {
    draws_random = true;
  }

  void infer(InferContext& context) const override {
    const DType in = context.input_type(0);
    if (!is_probability_type(in)) context.node().fail_unsupported("input type " + std::string(dtype_name(in)));
    context.set_output(0, has_dtype_ ? dtype_ : in, context.input_shape(0));
  }

  void run(RunContext& context) const override {
    const Tensor p = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const random_draws::Source source = random_draws::source_for(context, has_seed_, random_draws::float_seed_bits(seed_));
    std::byte* bytes = mutable_tensor_bytes(out).data();
    const auto n = static_cast<std::size_t>(out.element_count());
    for (std::size_t i = 0; i < n; ++i) {
      const double pi = probability(p, i);
      if (!(pi >= 0.0 && pi <= 1.0)) {
        throw SessionError(SessionErrorKind::InvalidInput,
                           "Bernoulli: input element " + std::to_string(i) + " is " + std::to_string(pi) +
                               ", not a probability in [0, 1]",
                           context.node().name());
      }
      const std::array<std::uint32_t, 4> w = random_draws::words(source, i, 0);
      put_outcome(bytes, out.dtype(), i, random_draws::unit_double(w[0], w[1]) < pi);
    }
  }

 private:
  bool has_seed_;
  float seed_;
  bool has_dtype_;
  DType dtype_;
};

}  // namespace

std::unique_ptr<OpKernel> make_bernoulli(const NodeInfo& node) {
  const bool has_dtype = node.has("dtype");
  DType dtype = DType::F32;
  if (has_dtype) {
    const std::int64_t code = node.get_int("dtype", 1);
    if (code <= 0 || code > 26 || !is_outcome_type(static_cast<DType>(code))) {
      node.fail_invalid("dtype " + std::to_string(code) + " is not a numeric or bool type Bernoulli produces");
    }
    dtype = static_cast<DType>(code);
  }
  return std::make_unique<Bernoulli>(node.has("seed"), node.get_float("seed", 0.0f), has_dtype, dtype);
}

}  // namespace onemodel
