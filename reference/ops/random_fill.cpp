#include "reference/ops/random_fill.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/graph/node_info.hpp"
#include "onemodel/half.hpp"

namespace onemodel::random_draws {
namespace {

// One step toward minus infinity of a 16-bit float pattern (sign-magnitude): a positive non-zero
// value loses one unit, a negative one (or -0) gains one, +0 becomes the smallest negative value.
std::uint16_t step_down_16(std::uint16_t bits) noexcept {
  if (bits == 0) return 0x8001u;
  if ((bits & 0x8000u) == 0) return static_cast<std::uint16_t>(bits - 1u);
  return static_cast<std::uint16_t>(bits + 1u);
}

}  // namespace

bool is_float_output(DType type) noexcept {
  return type == DType::F32 || type == DType::F64 || type == DType::F16 || type == DType::BF16;
}

DType float_output_type(const NodeInfo& node, DType fallback, bool fallback_known) {
  if (!node.has("dtype")) {
    if (!fallback_known || !is_float_output(fallback)) {
      node.fail_invalid("the output type follows the input's, which is not a floating type; give `dtype`");
    }
    return fallback;
  }
  const std::int64_t code = node.get_int("dtype", 1);
  const bool ok = code == 1 || code == 10 || code == 11 || code == 16;
  if (!ok) node.fail_invalid("dtype " + std::to_string(code) + " is not float16, float, double or bfloat16");
  return static_cast<DType>(code);
}

void store(const Tensor& out, std::int64_t i, double v) {
  const auto k = static_cast<std::size_t>(i);
  switch (out.dtype()) {
    case DType::F64: out.mutable_data<double>()[k] = v; break;
    case DType::F32: out.mutable_data<float>()[k] = static_cast<float>(v); break;
    case DType::F16: out.mutable_data<std::uint16_t>()[k] = float_to_half_bits(static_cast<float>(v)); break;
    case DType::BF16: out.mutable_data<std::uint16_t>()[k] = float_to_bfloat16_bits(static_cast<float>(v)); break;
    default: break;  // is_float_output() was checked by the factory
  }
}

double load(const Tensor& out, std::int64_t i) {
  const auto k = static_cast<std::size_t>(i);
  switch (out.dtype()) {
    case DType::F64: return out.mutable_data<double>()[k];
    case DType::F32: return out.mutable_data<float>()[k];
    case DType::F16: return half_bits_to_float(out.mutable_data<std::uint16_t>()[k]);
    case DType::BF16: return bfloat16_bits_to_float(out.mutable_data<std::uint16_t>()[k]);
    default: return 0.0;
  }
}

void step_down(const Tensor& out, std::int64_t i) {
  const auto k = static_cast<std::size_t>(i);
  constexpr double kDown = -std::numeric_limits<double>::infinity();
  switch (out.dtype()) {
    case DType::F64: out.mutable_data<double>()[k] = std::nextafter(out.mutable_data<double>()[k], kDown); break;
    case DType::F32: {
      float& f = out.mutable_data<float>()[k];
      f = std::nextafter(f, -std::numeric_limits<float>::infinity());
      break;
    }
    case DType::F16:
    case DType::BF16: {
      std::uint16_t& h = out.mutable_data<std::uint16_t>()[k];
      h = step_down_16(h);
      break;
    }
    default: break;
  }
}

}  // namespace onemodel::random_draws
