// spec/ops/elementwise.md section 7.1: Cast with an 8-bit float on either side. Every source
// element becomes its exact value as a double (8-bit floats, float16, bfloat16, float32 and
// float64 exactly; integers exactly up to 2^53, beyond that rounded to odd), then the target's
// rule rounds it once: onemodel/float8.hpp for 8-bit targets, Cast's usual rules
// (convert_from_double) for the others.
#include "reference/ops/cast_float8.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "reference/ops/cast_convert.hpp"
#include "reference/ops/element_reader.hpp"

namespace onemodel::ew {
namespace {

// An integer's magnitude brought to at most 53 significant bits by rounding to odd (the dropped
// bits, if any is set, set the lowest kept bit), then made a double exactly. A later rounding to
// 51 bits or fewer, in any direction or to nearest, then gives the rounding of the exact integer
// (the float8 formats keep at most 4 significant bits).
double magnitude_rounded_to_odd(std::uint64_t magnitude) noexcept {
  constexpr std::uint64_t kExactLimit = std::uint64_t{1} << 53;
  if (magnitude < kExactLimit) return static_cast<double>(magnitude);
  int width = 64;
  while (((magnitude >> (width - 1)) & 1u) == 0) --width;
  const int dropped = width - 53;
  std::uint64_t kept = magnitude >> dropped;
  if ((magnitude & ((std::uint64_t{1} << dropped) - 1u)) != 0) kept |= 1u;
  return std::ldexp(static_cast<double>(kept), dropped);
}

template <class From>
double exact_value(typename From::storage s) noexcept {
  if constexpr (is_float<From>) {
    return static_cast<double>(From::load(s));
  } else if constexpr (std::is_same_v<From, Bool>) {
    return s != 0 ? 1.0 : 0.0;
  } else if constexpr (std::is_unsigned_v<typename From::value>) {
    return magnitude_rounded_to_odd(static_cast<std::uint64_t>(s));
  } else {
    const auto v = static_cast<std::int64_t>(s);
    // 0 - (uint64)v is |v| also for INT64_MIN (modular arithmetic).
    if (v < 0) return -magnitude_rounded_to_odd(std::uint64_t{0} - static_cast<std::uint64_t>(v));
    return magnitude_rounded_to_odd(static_cast<std::uint64_t>(v));
  }
}

std::vector<double> source_values(const Tensor& in) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(in.element_count()));
  const auto count = static_cast<std::size_t>(in.element_count());
  if (dtype_is_float8(in.dtype())) {
    const auto format = static_cast<Float8Format>(in.dtype());
    ElementReader<std::uint8_t> reader(in, in.shape());
    for (std::size_t i = 0; i < count; ++i) values.push_back(float8_bits_to_float(format, reader.next()));
    return values;
  }
  dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
    using From = decltype(from_tag);
    ElementReader<typename From::storage> reader(in, in.shape());
    for (std::size_t i = 0; i < count; ++i) values.push_back(exact_value<From>(reader.next()));
  });
  return values;
}

}  // namespace

Float8CastOptions read_float8_cast_options(const NodeInfo& node) {
  Float8CastOptions options;
  if (node.opset() >= 19) {
    const std::int64_t saturate = node.get_int("saturate", 1);
    if (saturate != 0 && saturate != 1) node.fail_invalid("saturate must be 0 or 1, not " + std::to_string(saturate));
    options.saturate = saturate == 1;
  }
  if (node.opset() >= 24) {
    const std::string mode = node.get_string("round_mode", "up");
    if (mode == "up") options.rounding = E8M0Rounding::Up;
    else if (mode == "down") options.rounding = E8M0Rounding::Down;
    else if (mode == "nearest") options.rounding = E8M0Rounding::Nearest;
    else node.fail_invalid("round_mode '" + mode + "' is not up, down or nearest");
  }
  return options;
}

void convert_tensor_float8(const Tensor& in, const Tensor& out, const Float8CastOptions& options) {
  const std::vector<double> values = source_values(in);
  if (dtype_is_float8(out.dtype())) {
    const auto format = static_cast<Float8Format>(out.dtype());
    auto o = out.mutable_data<std::uint8_t>();
    for (std::size_t i = 0; i < o.size(); ++i) {
      o[i] = double_to_float8_bits(format, values[i], options.saturate, options.rounding);
    }
    return;
  }
  dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
    using To = decltype(to_tag);
    auto o = out.mutable_data<typename To::storage>();
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = convert_from_double<To>(values[i]);
  });
}

void cast_tensor(const Tensor& in, const Tensor& out, const Float8CastOptions& options) {
  if (dtype_is_float8(in.dtype()) || dtype_is_float8(out.dtype())) return convert_tensor_float8(in, out, options);
  convert_tensor(in, out);
}

}  // namespace onemodel::ew
