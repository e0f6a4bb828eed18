// Shared helpers of the quantization operators (spec/ops/quantization.md sections 1 to 3): round
// half to even, saturation to the quantized type's range, reading scales and zero points, and the
// mapping of an element of x to its scale (per tensor, per axis, blocked).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "onemodel/half.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor.hpp"
#include "reference/ops/quant_rounding.hpp"

namespace onemodel::quant {

// The integer output types of QuantizeLinear; the 4- and 2-bit ones from opset 21
// (quant_subbyte.hpp; FLOAT4E2M1 is handled there as a float type).
inline bool is_quantized_type(DType t) noexcept {
  return t == DType::U8 || t == DType::I8 || t == DType::U16 || t == DType::I16 || t == DType::U4 ||
         t == DType::I4 || t == DType::U2 || t == DType::I2;
}
inline Range range_of(DType t) noexcept {
  switch (t) {
    case DType::U8: return {0, 255};
    case DType::I8: return {-128, 127};
    case DType::U16: return {0, 65535};
    case DType::I16: return {-32768, 32767};
    case DType::I32: return {-2147483648LL, 2147483647LL};
    case DType::U4: return {0, 15};
    case DType::I4: return {-8, 7};
    case DType::U2: return {0, 3};
    case DType::I2: return {-2, 1};
    default: return {0, 0};
  }
}

// The ONNX element-type code names the quantized types the library does not store (float8,
// float8e8m0), which are refused as Unsupported rather than as invalid.
inline bool is_unstored_quantized_code(std::int64_t code) noexcept {
  return (code >= 17 && code <= 26) && !dtype_is_stored(static_cast<std::int32_t>(code));  // 17 to 26
}

// Every element of an integer tensor (U8, I8, U16, I16, I32) as int64, row-major.
inline std::vector<std::int64_t> integers_of(const Tensor& t) {
  std::vector<std::int64_t> out;
  auto copy = [&](auto values) { out.assign(values.begin(), values.end()); };
  switch (t.dtype()) {
    case DType::U8: copy(t.to_vector<std::uint8_t>()); break;
    case DType::I8: copy(t.to_vector<std::int8_t>()); break;
    case DType::U16: copy(t.to_vector<std::uint16_t>()); break;
    case DType::I16: copy(t.to_vector<std::int16_t>()); break;
    case DType::I32: copy(t.to_vector<std::int32_t>()); break;
    // One element per byte, sign-extended for the signed types (spec/tensors.md section 2.1).
    case DType::U4:
    case DType::U2: copy(t.to_vector<std::uint8_t>()); break;
    case DType::I4:
    case DType::I2: copy(t.to_vector<std::int8_t>()); break;
    default: throw TensorError(TensorErrorKind::Type, "not a quantized integer tensor");
  }
  return out;
}

// Every element of a float scale tensor (F32, F16, BF16) widened exactly to float.
inline std::vector<float> floats_of(const Tensor& t) {
  std::vector<float> out;
  switch (t.dtype()) {
    case DType::F32: out = t.to_vector<float>(); break;
    case DType::F16:
      for (std::uint16_t b : t.to_vector<std::uint16_t>()) out.push_back(half_bits_to_float(b));
      break;
    case DType::BF16:
      for (std::uint16_t b : t.to_vector<std::uint16_t>()) out.push_back(bfloat16_bits_to_float(b));
      break;
    default: throw TensorError(TensorErrorKind::Type, "not a float scale tensor");
  }
  return out;
}

// Rounds a binary32 value once to the storage of F32, F16 or BF16 (nearest even; NaN canonical,
// spec/exact-mode.md rule 4).
inline float round_to(DType t, float v) noexcept {
  // __builtin_bit_cast, not std::bit_cast: emscripten's libc++ lacks it (DESIGN.md section 4).
  if (std::isnan(v)) return __builtin_bit_cast(float, 0x7FC00000u);
  if (t == DType::F16) return half_bits_to_float(float_to_half_bits(v));
  if (t == DType::BF16) return bfloat16_bits_to_float(float_to_bfloat16_bits(v));
  return v;
}

// Writes integers already inside the type's range into a contiguous integer output.
inline void store_integers(const Tensor& out, const std::vector<std::int64_t>& values) {
  auto put = [&](auto span) {
    for (std::size_t i = 0; i < values.size(); ++i) span[i] = static_cast<typename decltype(span)::value_type>(values[i]);
  };
  switch (out.dtype()) {
    case DType::U8: put(out.mutable_data<std::uint8_t>()); break;
    case DType::I8: put(out.mutable_data<std::int8_t>()); break;
    case DType::U16: put(out.mutable_data<std::uint16_t>()); break;
    case DType::I16: put(out.mutable_data<std::int16_t>()); break;
    case DType::I32: put(out.mutable_data<std::int32_t>()); break;
    case DType::U4:
    case DType::U2: put(out.mutable_data<std::uint8_t>()); break;
    case DType::I4:
    case DType::I2: put(out.mutable_data<std::int8_t>()); break;
    default: throw TensorError(TensorErrorKind::Type, "not an integer output");
  }
}

// Writes binary32 values to a contiguous F32, F16 or BF16 output, rounding once (canonical NaN).
inline void store_floats(const Tensor& out, const std::vector<float>& values) {
  switch (out.dtype()) {
    case DType::F32: {
      auto y = out.mutable_data<float>();
      for (std::size_t i = 0; i < values.size(); ++i) y[i] = round_to(DType::F32, values[i]);
      break;
    }
    case DType::F16: {
      auto y = out.mutable_data<std::uint16_t>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        y[i] = std::isnan(values[i]) ? std::uint16_t{0x7E00} : float_to_half_bits(values[i]);
      }
      break;
    }
    case DType::BF16: {
      auto y = out.mutable_data<std::uint16_t>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        y[i] = std::isnan(values[i]) ? std::uint16_t{0x7FC0} : float_to_bfloat16_bits(values[i]);
      }
      break;
    }
    default: throw TensorError(TensorErrorKind::Type, "not a float output");
  }
}

// Section 2: the zero point has the scale's shape; a one-element zero point goes with a
// one-element scale whatever their ranks (0 or 1).
inline void check_zero_point_shape(const NodeInfo& node, const Shape& zp, const Shape& scale) {
  if (zp == scale) return;
  if (zp.element_count() == 1 && scale.element_count() == 1 && zp.rank() <= 1 && scale.rank() <= 1) return;
  node.fail_invalid("zero point shape " + zp.to_string() + " differs from scale shape " + scale.to_string());
}

// spec/ops/quantization.md section 2: which scale (and zero point) each element of x uses.
struct ScaleLayout {
  enum class Kind { PerTensor, PerAxis, Blocked } kind = Kind::PerTensor;
  std::int64_t outer = 1;   // product of the extents before the axis
  std::int64_t extent = 1;  // the axis's extent
  std::int64_t inner = 1;   // product of the extents after the axis
  std::int64_t block = 0;
  std::int64_t blocks = 1;  // ceil(extent / block)

  // The scale index of element `flat` (row-major) of x.
  std::int64_t index(std::int64_t flat) const noexcept {
    if (kind == Kind::PerTensor) return 0;
    const std::int64_t j = (flat / inner) % extent;
    if (kind == Kind::PerAxis) return j;
    const std::int64_t o = flat / (inner * extent);
    const std::int64_t in = flat % inner;
    return (o * blocks + j / block) * inner + in;
  }
};

// ceil(extent / block) for extent >= 0 and block >= 1, without forming extent + block - 1 (block_size
// is any int64 from the file: INT64_MAX overflowed it; spec/operator-contract.md section 6).
inline std::int64_t block_count(std::int64_t extent, std::int64_t block) noexcept {
  return extent == 0 ? 0 : (extent - 1) / block + 1;
}

// Section 2. Per tensor: the scale has one element and rank 0 or 1 (axis ignored). Per axis: the
// scale is 1-D with the axis's extent. Blocked (block_size > 0, opset 21+): the scale has x's rank
// and extents, except ceil(D_axis / block_size) on the axis. `allow_per_axis` is false for
// operators (opset 10) whose scale must be a scalar.
inline ScaleLayout resolve_layout(const NodeInfo& node, const Shape& x, const Shape& scale, std::int64_t axis,
                                  std::int64_t block_size, bool allow_per_axis) {
  ScaleLayout l;
  if (block_size < 0) node.fail_invalid("block_size must not be negative");
  const int r = x.rank();
  auto normalized_axis = [&] {
    if (axis < -r || axis >= r) node.fail_invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    return axis < 0 ? axis + r : axis;
  };
  if (block_size == 0) {
    if (scale.element_count() == 1 && scale.rank() <= 1) return l;
    if (!allow_per_axis || scale.rank() != 1) node.fail_invalid("scale of shape " + scale.to_string() + " is neither a scalar nor 1-D");
    const std::int64_t a = normalized_axis();
    if (scale[0] != x[static_cast<int>(a)]) node.fail_invalid("per-axis scale length differs from the axis extent of " + x.to_string());
    l.kind = ScaleLayout::Kind::PerAxis;
  } else {
    const std::int64_t a = normalized_axis();
    if (scale.rank() != r) node.fail_invalid("blocked scale must have the rank of x");
    for (int i = 0; i < r; ++i) {
      const std::int64_t want = i == a ? block_count(x[i], block_size) : x[i];
      if (scale[i] != want) node.fail_invalid("blocked scale shape " + scale.to_string() + " does not fit x " + x.to_string());
    }
    l.kind = ScaleLayout::Kind::Blocked;
    l.block = block_size;
  }
  const int a = static_cast<int>(normalized_axis());
  for (int i = 0; i < a; ++i) l.outer *= x[i];
  l.extent = x[a];
  for (int i = a + 1; i < r; ++i) l.inner *= x[i];
  if (l.kind == ScaleLayout::Kind::Blocked) l.blocks = block_count(l.extent, l.block);
  return l;
}

}  // namespace onemodel::quant
