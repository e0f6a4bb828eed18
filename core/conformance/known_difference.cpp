#include "core/conformance/known_difference.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/conformance/compare.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "onemodel/half.hpp"

namespace onemodel::conformance {
namespace {

std::string number_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// The value's bits in its own type, mapped so that the order of the keys is the order of the
// values: adjacent representable values are one key apart (the two zeros count as one).
std::uint64_t ordered_key(double value, DType type) noexcept {
  std::uint64_t bits = 0;
  int width = 64;
  switch (type) {
    case DType::F32:
      // __builtin_bit_cast, not std::bit_cast: emscripten's libc++ lacks it (DESIGN.md section 4).
      bits = __builtin_bit_cast(std::uint32_t, static_cast<float>(value));
      width = 32;
      break;
    case DType::F16:
      bits = float_to_half_bits(static_cast<float>(value));
      width = 16;
      break;
    case DType::BF16:
      bits = float_to_bfloat16_bits(static_cast<float>(value));
      width = 16;
      break;
    default: bits = __builtin_bit_cast(std::uint64_t, value); break;
  }
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const std::uint64_t magnitude = bits & (sign - 1);
  // -0 and +0 share the key `sign`; -x lies as far below it as +x lies above.
  return (bits & sign) != 0 ? sign - magnitude : sign + magnitude;
}

std::string element_text(std::size_t k, double got, double want) {
  return "element " + std::to_string(k) + ": got " + number_text(got) + ", expected " + number_text(want);
}

}  // namespace

double ulp_distance(double a, double b, DType type) noexcept {
  if (a == b) return 0.0;  // also +0 against -0
  const std::uint64_t x = ordered_key(a, type);
  const std::uint64_t y = ordered_key(b, type);
  return static_cast<double>(x > y ? x - y : y - x);
}

std::string describe_bound(const KnownDifference& known) {
  switch (known.kind) {
    case DiffBound::MaxAbs: return "max |got - expected| <= " + number_text(known.bound);
    case DiffBound::MaxUlp: return "max distance <= " + number_text(known.bound) + " ulp";
    case DiffBound::Values:
      return "equals the documented values instead (" + std::to_string(known.values.size()) + " elements)";
    case DiffBound::DrawSupport: {
      std::string text = "a random draw: every element in {";
      for (std::size_t i = 0; i < known.values.size(); ++i) text += (i ? ", " : "") + number_text(known.values[i]);
      return text + "}";
    }
    case DiffBound::DrawMasked: return "a random dropping: every element 0 or the recorded non-zero value";
  }
  return "no bound";
}

// DrawSupport and DrawMasked (spec/ops/random.md section 12), for floating and bool outputs.
static std::string check_draw(const Tensor& got, const Tensor& want, const KnownDifference& known) {
  const DType type = got.dtype();
  const bool boolean = type == DType::Bool;
  if (!boolean && !is_float_dtype(type)) return "a random draw is checked on floating-point and bool outputs only";
  const Tensor got_c = got.contiguous();
  const Tensor want_c = want.contiguous();
  const std::span<const std::byte> a = tensor_bytes(got_c);
  const std::span<const std::byte> b = tensor_bytes(want_c);
  auto element = [&](std::span<const std::byte> bytes, std::size_t k) {
    return boolean ? static_cast<double>(std::to_integer<unsigned>(bytes[k])) : float_element(bytes, type, k);
  };
  const auto count = static_cast<std::size_t>(got.element_count());
  for (std::size_t k = 0; k < count; ++k) {
    const double g = element(a, k);
    if (known.kind == DiffBound::DrawSupport) {
      bool in_support = false;
      for (double v : known.values) in_support = in_support || g == v;
      if (!in_support) return "element " + std::to_string(k) + ": got " + number_text(g) + ", outside the support";
      continue;
    }
    const double w = element(b, k);
    if (g == 0.0 || w == 0.0) continue;
    if (!float_element_matches(g, w)) return element_text(k, g, w) + " (both kept, so both must be the scaled input)";
  }
  return {};
}

std::string check_known_difference(const Tensor& got, const Tensor& want, const KnownDifference& known) {
  if (got.dtype() != want.dtype()) return "element types differ";
  if (!(got.shape() == want.shape())) return "shapes differ";
  if (known.kind == DiffBound::DrawSupport || known.kind == DiffBound::DrawMasked) return check_draw(got, want, known);
  const DType type = got.dtype();
  if (!is_float_dtype(type)) return "a known difference covers floating-point outputs only";
  const Tensor got_c = got.contiguous();
  const Tensor want_c = want.contiguous();
  const std::span<const std::byte> a = tensor_bytes(got_c);
  const std::span<const std::byte> b = tensor_bytes(want_c);
  const auto count = static_cast<std::size_t>(got.element_count());
  if (known.kind == DiffBound::Values && known.values.size() != count) {
    return "the entry holds " + std::to_string(known.values.size()) + " values, the output has " + std::to_string(count);
  }
  for (std::size_t k = 0; k < count; ++k) {
    const double g = float_element(a, type, k);
    if (known.kind == DiffBound::Values) {
      // The documented answer replaces the recorded one; the tolerance stays that of section 3.
      if (!float_element_matches(g, known.values[k])) return element_text(k, g, known.values[k]) + " (documented value)";
      continue;
    }
    const double w = float_element(b, type, k);
    if (float_element_matches(g, w)) continue;
    if (!std::isfinite(g) || !std::isfinite(w)) return element_text(k, g, w) + " (not finite)";
    const double distance = known.kind == DiffBound::MaxAbs ? std::fabs(g - w) : ulp_distance(g, w, type);
    if (!(distance <= known.bound)) {
      return element_text(k, g, w) + ", " + (known.kind == DiffBound::MaxAbs ? "|got - expected| " : "ulp distance ") +
             number_text(distance) + " > " + number_text(known.bound);
    }
  }
  return {};
}

}  // namespace onemodel::conformance
