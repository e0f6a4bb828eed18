// spec/ops/elementwise.md section 7, "Sub-byte types": Cast's conversions from and to UINT4, INT4,
// FLOAT4E2M1, UINT2 and INT2, whose tensors hold one element per byte (spec/tensors.md 2.1).
#include "reference/ops/cast_subbyte.hpp"

#include <cstdint>
#include <type_traits>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "reference/ops/cast_convert.hpp"
#include "reference/ops/element_reader.hpp"

namespace onemodel::ew {
namespace {

// A float value into a sub-byte type. binary32, binary16 and bfloat16 values are binary32 numbers,
// rounded by the proved binary32 rule; binary64 values are rounded once by the same rule.
template <class From>
std::uint8_t subbyte_from_float(DType to, typename From::value value) {
  if (to == DType::F4E2M1) {
    if constexpr (std::is_same_v<typename From::value, float>) return float_to_float4e2m1(value);
    else return double_to_float4e2m1(value);
  }
  return subbyte_integer_from_double(to, static_cast<double>(value));
}

// An integer (its two's-complement bits and its value) into a sub-byte type.
std::uint8_t subbyte_from_integer(DType to, std::uint64_t bits, double value) {
  if (to == DType::F4E2M1) return double_to_float4e2m1(value);
  return subbyte_integer_from_bits(to, bits);
}

// Calls f(value) for each element of a sub-byte tensor in row-major order: a double for
// FLOAT4E2M1, an int64 for the integer types.
template <class F>
void for_each_subbyte(const Tensor& in, F&& f) {
  const auto count = static_cast<std::size_t>(in.element_count());
  if (in.dtype() == DType::I4 || in.dtype() == DType::I2) {
    ElementReader<std::int8_t> reader(in, in.shape());
    for (std::size_t i = 0; i < count; ++i) f(static_cast<std::int64_t>(reader.next()));
    return;
  }
  ElementReader<std::uint8_t> reader(in, in.shape());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t byte = reader.next();
    if (in.dtype() == DType::F4E2M1) f(static_cast<double>(float4e2m1_to_float(byte)));
    else f(static_cast<std::int64_t>(byte));
  }
}

void from_subbyte(const Tensor& in, const Tensor& out) {
  if (dtype_is_subbyte(out.dtype())) {
    auto o = mutable_tensor_bytes(out);
    std::size_t i = 0;
    for_each_subbyte(in, [&](auto value) {
      std::uint8_t code;
      if constexpr (std::is_same_v<decltype(value), double>) code = subbyte_from_float<F64>(out.dtype(), value);
      else code = subbyte_from_integer(out.dtype(), static_cast<std::uint64_t>(value), static_cast<double>(value));
      o[i++] = static_cast<std::byte>(code);
    });
    return;
  }
  dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
    using To = decltype(to_tag);
    auto o = out.mutable_data<typename To::storage>();
    std::size_t i = 0;
    for_each_subbyte(in, [&](auto value) {
      if constexpr (std::is_same_v<decltype(value), double>) o[i++] = convert_from_double<To>(value);
      else o[i++] = convert_from_integer<To>(value);
    });
  });
}

void to_subbyte(const Tensor& in, const Tensor& out) {
  const DType to = out.dtype();
  auto o = mutable_tensor_bytes(out);
  dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
    using From = decltype(from_tag);
    using S = typename From::storage;
    ElementReader<S> source(in, in.shape());
    for (std::size_t i = 0; i < o.size(); ++i) {
      const S s = source.next();
      std::uint8_t code;
      if constexpr (is_float<From>) {
        code = subbyte_from_float<From>(to, From::load(s));
      } else if constexpr (std::is_same_v<From, Bool>) {
        code = subbyte_from_integer(to, s != 0 ? 1u : 0u, s != 0 ? 1.0 : 0.0);
      } else if constexpr (std::is_unsigned_v<S>) {
        code = subbyte_from_integer(to, static_cast<std::uint64_t>(s), static_cast<double>(s));
      } else {
        code = subbyte_from_integer(to, static_cast<std::uint64_t>(static_cast<std::int64_t>(s)), static_cast<double>(s));
      }
      o[i] = static_cast<std::byte>(code);
    }
  });
}

}  // namespace

void require_castable(const InferContext& context, std::size_t input) {
  if (dtype_is_subbyte(context.input_type(input))) return;
  require(context, input, StoredTypes{});
}

bool is_subbyte_cast(DType from, DType to) noexcept { return dtype_is_subbyte(from) || dtype_is_subbyte(to); }

void convert_subbyte_tensor(const Tensor& in, const Tensor& out) {
  if (dtype_is_subbyte(in.dtype())) from_subbyte(in, out);
  else to_subbyte(in, out);
}

}  // namespace onemodel::ew
