// Element-type tags and type dispatch shared by the element-wise operators
// (spec/ops/elementwise.md sections 1 and 3). A tag names a stored element type, the C++ type its
// storage is read as, and the type its arithmetic is done in: 16-bit floats are computed in
// binary32 and rounded to nearest even once when stored (spec/ops/elementwise.md section 1).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/graph/op_kernel.hpp"
#include "onemodel/half.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel::ew {

// spec/ops/elementwise.md section 3: every stored NaN is the quiet NaN with no payload and a
// positive sign. The reference engine's fast mode uses the same code as exact mode.
inline float store_f32(float v) noexcept { return canonical_nan_f32(v); }
inline double store_f64(double v) noexcept {
  if (!std::isnan(v)) return v;
  const std::uint64_t bits = 0x7FF8000000000000ull;
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

template <class Storage, DType Type>
struct Plain {
  static constexpr DType type = Type;
  using storage = Storage;
  using value = Storage;
  static value load(storage s) noexcept { return s; }
  static storage store(value v) noexcept { return v; }
};

struct F32 {
  static constexpr DType type = DType::F32;
  using storage = float;
  using value = float;
  static value load(storage s) noexcept { return s; }
  static storage store(value v) noexcept { return store_f32(v); }
};
struct F64 {
  static constexpr DType type = DType::F64;
  using storage = double;
  using value = double;
  static value load(storage s) noexcept { return s; }
  static storage store(value v) noexcept { return store_f64(v); }
};
struct F16 {
  static constexpr DType type = DType::F16;
  using storage = std::uint16_t;
  using value = float;
  static value load(storage s) noexcept { return half_bits_to_float(s); }
  static storage store(value v) noexcept { return std::isnan(v) ? std::uint16_t{0x7E00} : float_to_half_bits(v); }
};
struct BF16 {
  static constexpr DType type = DType::BF16;
  using storage = std::uint16_t;
  using value = float;
  static value load(storage s) noexcept { return bfloat16_bits_to_float(s); }
  static storage store(value v) noexcept { return std::isnan(v) ? std::uint16_t{0x7FC0} : float_to_bfloat16_bits(v); }
};
struct Bool {
  static constexpr DType type = DType::Bool;
  using storage = std::uint8_t;
  using value = bool;
  static value load(storage s) noexcept { return s != 0; }
  static storage store(value v) noexcept { return v ? 1 : 0; }
};
using I8 = Plain<std::int8_t, DType::I8>;
using I16 = Plain<std::int16_t, DType::I16>;
using I32 = Plain<std::int32_t, DType::I32>;
using I64 = Plain<std::int64_t, DType::I64>;
using U8 = Plain<std::uint8_t, DType::U8>;
using U16 = Plain<std::uint16_t, DType::U16>;
using U32 = Plain<std::uint32_t, DType::U32>;
using U64 = Plain<std::uint64_t, DType::U64>;

template <class E>
inline constexpr bool is_float = std::is_floating_point_v<typename E::value>;

// The largest finite value of the element type (Clip's omitted bound, spec/ops/elementwise.md
// section 6), in the type arithmetic is done in.
template <class E>
typename E::value finite_highest() noexcept {
  if constexpr (std::is_same_v<E, F16>) return 65504.0f;
  else if constexpr (std::is_same_v<E, BF16>) return 3.38953139e38f;
  else return std::numeric_limits<typename E::value>::max();
}
template <class E>
typename E::value finite_lowest() noexcept {
  if constexpr (std::is_same_v<E, F16> || std::is_same_v<E, BF16>) return -finite_highest<E>();
  else return std::numeric_limits<typename E::value>::lowest();
}

template <class... Es>
struct Types {};

using FloatTypes = Types<F32, F64, F16>;
using IntegerTypes = Types<I8, I16, I32, I64, U8, U16, U32, U64>;
using UnsignedTypes = Types<U8, U16, U32, U64>;
using NumericTypes = Types<F32, F64, F16, I8, I16, I32, I64, U8, U16, U32, U64>;
using SignedNumericTypes = Types<F32, F64, F16, I8, I16, I32, I64>;
using NumericAndBoolTypes = Types<F32, F64, F16, I8, I16, I32, I64, U8, U16, U32, U64, Bool>;
using BoolTypes = Types<Bool>;
using F32Types = Types<F32>;
using F32F64Types = Types<F32, F64>;
using StoredTypes = Types<F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64, Bool>;
// For require() only: STRING has no tag (its elements are not numbers; Cast serves it apart).
struct StringTag {
  static constexpr DType type = DType::String;
};
using StringAndStoredTypes = Types<F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64, Bool, StringTag>;

// Unsupported naming the node, input and type unless input i has one of the list's types.
template <class... Es>
void require(const InferContext& context, std::size_t input, Types<Es...>) {
  context.require_type(input, {Es::type...});
}

// Calls f(E{}) for the tag E of `type`; a type outside the list is Unsupported (infer() refuses
// it first, so this is a guard).
template <class... Es, class F>
void dispatch(DType type, Types<Es...>, F&& f) {
  const bool done = ((type == Es::type ? (f(Es{}), true) : false) || ...);
  if (!done) {
    throw SessionError(SessionErrorKind::Unsupported,
                       "element type " + std::string(dtype_name(type)) + " is not handled by this operator");
  }
}

}  // namespace onemodel::ew
