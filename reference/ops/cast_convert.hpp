// The element conversions of Cast and CastLike (spec/ops/elementwise.md section 7). Float sources
// (f16, bf16, f32, f64) go through double, which holds all four exactly; integer and Bool sources
// through a 64-bit integer (signed, or unsigned for unsigned sources).
//   float -> float:   f64 exactly, f32 rounded to nearest even; f16 and bf16 through f32
//                     (so f64 -> 16 bits rounds twice, spec/tensors.md section 10).
//   float -> integer: truncate toward zero, saturate at the target's range, NaN gives 0.
//   any -> Bool:      x != 0 (NaN is true, -0 is false).
//   integer -> integer: wrap modulo 2^n.
//   integer or Bool -> float: rounded to nearest even (through f32 for the 16-bit types).
#pragma once

#include <cstdint>
#include <type_traits>

#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/float_to_integer.hpp"

namespace onemodel::ew {

template <class To>
typename To::storage convert_from_double(double value) {
  if constexpr (std::is_same_v<To, Bool>) return value != 0.0 ? 1 : 0;
  else if constexpr (std::is_same_v<To, F64>) return To::store(value);
  else if constexpr (is_float<To>) return To::store(static_cast<float>(value));
  else return saturate_to_integer<typename To::storage>(value);
}

template <class To, class Wide>
typename To::storage convert_from_integer(Wide value) {
  if constexpr (std::is_same_v<To, Bool>) return value != 0 ? 1 : 0;
  else if constexpr (std::is_same_v<To, F64>) return static_cast<double>(value);
  else if constexpr (is_float<To>) return To::store(static_cast<float>(value));
  else return static_cast<typename To::storage>(value);
}

template <class To, class From>
typename To::storage convert_element(typename From::storage source) {
  if constexpr (is_float<From>) {
    return convert_from_double<To>(static_cast<double>(From::load(source)));
  } else if constexpr (std::is_same_v<From, Bool>) {
    return convert_from_integer<To>(static_cast<std::int64_t>(source != 0 ? 1 : 0));
  } else if constexpr (std::is_unsigned_v<typename From::value>) {
    return convert_from_integer<To>(static_cast<std::uint64_t>(source));
  } else {
    return convert_from_integer<To>(static_cast<std::int64_t>(source));
  }
}

// Converts every element of `in` into `out` (contiguous, same shape).
void convert_tensor(const Tensor& in, const Tensor& out);

}  // namespace onemodel::ew
