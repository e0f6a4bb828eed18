// Comparing a computed output with the recorded one (spec/conformance.md section 3, from the
// method section of conformance.md): element types and shapes must be equal; floating-point
// elements pass when |got - want| <= 1e-7 + 1e-3 * |want|, or both are NaN, or they are equal
// (which covers equal infinities); integer and boolean elements must be equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "onemodel/tensor.hpp"
#include "onemodel/value.hpp"

namespace onemodel::conformance {

inline constexpr double kAbsoluteTolerance = 1e-7;
inline constexpr double kRelativeTolerance = 1e-3;

// One floating-point element, both values widened exactly to double.
bool float_element_matches(double got, double want) noexcept;

// float16, bfloat16, float32 and float64.
bool is_float_dtype(DType type) noexcept;

// Element k of a row-major byte string of a float type, widened exactly to double.
double float_element(std::span<const std::byte> bytes, DType type, std::size_t k) noexcept;

struct Comparison {
  bool equal = true;
  std::int64_t mismatches = 0;  // elements outside the tolerance
  std::string reason;           // empty when equal: the first difference, the count, the largest
};

// `what` names the output in the reason ("output 'y'").
Comparison compare_tensors(const Tensor& got, const Tensor& want, const std::string& what);

// Session values (spec/conformance.md section 3): the kinds must be equal; tensors as
// compare_tensors; sequences by element type, length, then element by element with compare_tensors
// (the reason names the first differing element, `mismatches` counts differing elements); optionals
// by presence, then their contents. `want_element_type_known` false skips the element-type check
// of an empty recorded sequence whose file and declaration do not say it (SequenceProto carries no
// type for an empty list of tensors).
Comparison compare_values(const Value& got, const Value& want, const std::string& what,
                          bool want_element_type_known = true);

}  // namespace onemodel::conformance
