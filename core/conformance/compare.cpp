#include "core/conformance/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "onemodel/float8.hpp"
#include "onemodel/half.hpp"

namespace onemodel::conformance {
namespace {

// Element k of a row-major byte string, widened to double (exact for every float type here).
double float_at(std::span<const std::byte> bytes, DType type, std::size_t k) {
  switch (type) {
    case DType::F32: {
      float v;
      std::memcpy(&v, bytes.data() + 4 * k, 4);
      return v;
    }
    case DType::F64: {
      double v;
      std::memcpy(&v, bytes.data() + 8 * k, 8);
      return v;
    }
    case DType::F16:
    case DType::BF16: {
      std::uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * k, 2);
      return type == DType::F16 ? half_bits_to_float(bits) : bfloat16_bits_to_float(bits);
    }
    default:
      // The 8-bit floats (spec/tensors.md section 2.1) at their exact values: NaN matches NaN.
      if (dtype_is_float8(type)) {
        return float8_bits_to_float(static_cast<Float8Format>(type), std::to_integer<std::uint8_t>(bytes[k]));
      }
      return 0.0;
  }
}

// Integer and boolean element k as text, for the reason.
std::string integer_text(std::span<const std::byte> bytes, DType type, std::size_t k) {
  const std::size_t size = dtype_size(type);
  std::uint64_t raw = 0;
  std::memcpy(&raw, bytes.data() + size * k, size);
  if (type == DType::Bool) return raw != 0 ? "true" : "false";
  const bool is_signed = type == DType::I8 || type == DType::I16 || type == DType::I32 || type == DType::I64 ||
                         type == DType::I4 || type == DType::I2;  // sign-extended bytes (spec/tensors.md 2.1)
  if (is_signed && size < 8 && (raw >> (8 * size - 1)) != 0) raw |= ~std::uint64_t{0} << (8 * size);
  return is_signed ? std::to_string(static_cast<std::int64_t>(raw)) : std::to_string(raw);
}

std::string float_text(double value, DType type) {
  char text[40];
  std::snprintf(text, sizeof text, type == DType::F64 ? "%.17g" : "%.9g", value);
  return text;
}

std::string index_text(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(static_cast<std::size_t>(shape.rank()));
  for (int d = shape.rank() - 1; d >= 0; --d) {
    const std::int64_t extent = shape[d];
    index[static_cast<std::size_t>(d)] = extent == 0 ? 0 : flat % extent;
    flat = extent == 0 ? 0 : flat / extent;
  }
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d) text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

}  // namespace

bool is_float_dtype(DType type) noexcept {
  return type == DType::F32 || type == DType::F64 || type == DType::F16 || type == DType::BF16 ||
         dtype_is_float8(type);
}

double float_element(std::span<const std::byte> bytes, DType type, std::size_t k) noexcept {
  return is_float_dtype(type) ? float_at(bytes, type, k) : 0.0;
}

bool float_element_matches(double got, double want) noexcept {
  if (got == want) return true;  // includes equal infinities and +0 / -0
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  // An infinity equals only itself: without this, |x - inf| <= 1e-3 * inf would accept any x.
  if (std::isinf(got) || std::isinf(want)) return false;
  return std::fabs(got - want) <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(want);
}

namespace {

// A string as the reason shows it: printable ASCII as is, other bytes as \xHH, at most 64 bytes.
std::string quoted_for_reason(const std::string& s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < 64; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 64) out += "...";
  return out + "\"";
}

// spec/conformance.md section 2: string elements match when their bytes are equal.
Comparison compare_strings(const Tensor& got, const Tensor& want, const std::string& what) {
  Comparison result;
  const std::vector<std::string> a = got.to_vector<std::string>();
  const std::vector<std::string> b = want.to_vector<std::string>();
  std::int64_t first = -1;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k] == b[k]) continue;
    ++result.mismatches;
    if (first < 0) first = static_cast<std::int64_t>(k);
  }
  if (result.mismatches == 0) return result;
  result.equal = false;
  const auto k = static_cast<std::size_t>(first);
  result.reason = what + ": " + std::to_string(result.mismatches) + " of " + std::to_string(a.size()) +
                  " strings differ; first at " + index_text(got.shape(), first) + ": got " + quoted_for_reason(a[k]) +
                  ", expected " + quoted_for_reason(b[k]);
  return result;
}

}  // namespace

Comparison compare_tensors(const Tensor& got, const Tensor& want, const std::string& what) {
  Comparison result;
  if (got.dtype() != want.dtype()) {
    result.equal = false;
    result.reason = what + ": element type " + std::string(dtype_name(got.dtype())) + ", expected " +
                    std::string(dtype_name(want.dtype()));
    return result;
  }
  if (!(got.shape() == want.shape())) {
    result.equal = false;
    result.reason = what + ": shape " + got.shape().to_string() + ", expected " + want.shape().to_string();
    return result;
  }
  if (got.dtype() == DType::String) return compare_strings(got, want, what);
  const Tensor got_c = got.contiguous();
  const Tensor want_c = want.contiguous();
  const std::span<const std::byte> a = tensor_bytes(got_c);
  const std::span<const std::byte> b = tensor_bytes(want_c);
  const DType type = got.dtype();
  const std::size_t size = dtype_size(type);
  const auto count = static_cast<std::size_t>(got.element_count());
  std::int64_t first = -1;
  double largest = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    bool same;
    if (is_float_dtype(type)) {
      const double g = float_at(a, type, k);
      const double w = float_at(b, type, k);
      same = float_element_matches(g, w);
      if (!same) {
        const double diff = std::fabs(g - w);
        if (!(diff <= largest)) largest = diff;  // a NaN difference is the largest
      }
    } else if (type == DType::Bool) {
      same = (a[k] != std::byte{0}) == (b[k] != std::byte{0});
    } else {
      same = std::memcmp(a.data() + size * k, b.data() + size * k, size) == 0;
    }
    if (!same) {
      ++result.mismatches;
      if (first < 0) first = static_cast<std::int64_t>(k);
    }
  }
  if (result.mismatches == 0) return result;
  result.equal = false;
  const auto k = static_cast<std::size_t>(first);
  const std::string got_text = is_float_dtype(type) ? float_text(float_at(a, type, k), type) : integer_text(a, type, k);
  const std::string want_text = is_float_dtype(type) ? float_text(float_at(b, type, k), type) : integer_text(b, type, k);
  result.reason = what + ": " + std::to_string(result.mismatches) + " of " + std::to_string(count) +
                  " elements differ; first at " + index_text(got.shape(), first) + ": got " + got_text +
                  ", expected " + want_text;
  if (is_float_dtype(type)) result.reason += "; largest |got - expected| " + float_text(largest, DType::F64);
  return result;
}

namespace {

const char* value_kind_text(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Sequence: return "a sequence";
    case Value::Kind::Optional: return "an optional";
    default: return "a tensor";
  }
}

Comparison differs(std::string reason) {
  Comparison c;
  c.equal = false;
  c.mismatches = 1;
  c.reason = std::move(reason);
  return c;
}

}  // namespace

Comparison compare_values(const Value& got, const Value& want, const std::string& what, bool want_element_type_known) {
  if (got.kind() != want.kind()) {
    return differs(what + ": " + value_kind_text(got.kind()) + ", expected " + value_kind_text(want.kind()));
  }
  switch (want.kind()) {
    case Value::Kind::Tensor:
      if (!got.defined()) return differs(what + ": no tensor returned");
      return compare_tensors(got.tensor(), want.tensor(), what);
    case Value::Kind::Sequence: {
      const std::vector<Tensor>& a = got.elements();
      const std::vector<Tensor>& b = want.elements();
      if (want_element_type_known && got.element_type() != want.element_type()) {
        return differs(what + ": a sequence of " + std::string(dtype_name(got.element_type())) + ", expected " +
                       std::string(dtype_name(want.element_type())));
      }
      if (a.size() != b.size()) {
        return differs(what + ": " + std::to_string(a.size()) + " elements in the sequence, expected " +
                       std::to_string(b.size()));
      }
      // Every element is compared so that the counts are right; the reason is the first's.
      Comparison result;
      std::size_t differing = 0;
      for (std::size_t k = 0; k < a.size(); ++k) {
        const Comparison c = compare_tensors(a[k], b[k], what + " element " + std::to_string(k));
        if (c.equal) continue;
        if (differing++ == 0) result.reason = c.reason;
        result.equal = false;
        result.mismatches += std::max<std::int64_t>(1, c.mismatches);  // a type or shape difference counts once
      }
      if (differing > 1) {
        result.reason += "; " + std::to_string(differing) + " of " + std::to_string(a.size()) +
                         " elements of the sequence differ";
      }
      return result;
    }
    case Value::Kind::Optional:
      if (got.has_value() != want.has_value()) {
        const auto text = [](const Value& v) {
          return v.has_value() ? std::string("holding ") + value_kind_text(v.value().kind()) : std::string("empty");
        };
        return differs(what + ": an optional " + text(got) + ", expected one " + text(want));
      }
      // Two empty optionals are equal: the data file need not say what an empty one would hold
      // (OptionalProto elem_type 0), and the backend runner compares None with None.
      if (!want.has_value()) return {};
      return compare_values(got.value(), want.value(), what, want_element_type_known);
  }
  return {};
}

}  // namespace onemodel::conformance
