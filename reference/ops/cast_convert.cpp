// spec/ops/elementwise.md section 7: Cast's conversion of a whole tensor, every source type to
// every target type; to and from STRING by spec/ops/strings.md section 1.
#include "reference/ops/cast_convert.hpp"

#include <string>
#include <type_traits>

#include "onemodel/session_error.hpp"
#include "reference/ops/cast_subbyte.hpp"
#include "reference/ops/element_reader.hpp"
#include "reference/ops/string_numbers.hpp"

namespace onemodel::ew {
namespace {

// spec/ops/strings.md section 1: numbers to text.
template <class From>
std::string number_to_text(typename From::storage source) {
  if constexpr (std::is_same_v<From, Bool>) return source != 0 ? "1" : "0";
  else if constexpr (is_float<From>) return format_floating(static_cast<double>(From::load(source)));
  else if constexpr (std::is_unsigned_v<typename From::value>) return format_unsigned(static_cast<std::uint64_t>(source));
  else return format_signed(static_cast<std::int64_t>(source));
}

[[noreturn]] void refuse_non_number(const std::string& text, DType to) {
  std::string shown = text.substr(0, 40);
  throw SessionError(SessionErrorKind::InvalidInput, "Cast: the string \"" + shown + (text.size() > 40 ? "..." : "") +
                                                         "\" is not a number (to " + std::string(dtype_name(to)) + ")");
}

// spec/ops/strings.md section 1: text to numbers. Floats: parsed and rounded once to the target
// (binary32 for float32 and, then rounded again, for float16 and bfloat16; binary64 for float64).
// Integers and Bool: an integer literal wraps modulo 2^n as integer casts do; another number goes
// through Cast's float rules (truncation toward zero, saturation).
template <class To>
typename To::storage text_to_number(const std::string& text) {
  if constexpr (is_float<To>) {
    const std::optional<double> v = parse_floating(text, !std::is_same_v<To, F64>);
    if (!v) refuse_non_number(text, To::type);
    return convert_from_double<To>(*v);
  } else {
    if (const std::optional<std::uint64_t> bits = parse_integer_bits(text)) {
      if constexpr (std::is_same_v<To, Bool>) return *bits != 0 ? 1 : 0;
      else return static_cast<typename To::storage>(*bits);
    }
    const std::optional<double> v = parse_floating(text, false);
    if (!v) refuse_non_number(text, To::type);
    return convert_from_double<To>(*v);
  }
}

void convert_with_strings(const Tensor& in, const Tensor& out) {
  if (in.dtype() == DType::String && out.dtype() == DType::String) {
    in.copy_elements_to(out);
    return;
  }
  if (out.dtype() == DType::String) {
    std::span<std::string> o = out.mutable_data<std::string>();
    dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
      using From = decltype(from_tag);
      ElementReader<typename From::storage> source(in, in.shape());
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = number_to_text<From>(source.next());
    });
    return;
  }
  const std::vector<std::string> texts = in.to_vector<std::string>();
  dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
    using To = decltype(to_tag);
    auto o = out.mutable_data<typename To::storage>();
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = text_to_number<To>(texts[i]);
  });
}

}  // namespace

void convert_tensor(const Tensor& in, const Tensor& out) {
  if (in.dtype() == DType::String || out.dtype() == DType::String) {
    convert_with_strings(in, out);
    return;
  }
  if (is_subbyte_cast(in.dtype(), out.dtype())) return convert_subbyte_tensor(in, out);
  dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
    using From = decltype(from_tag);
    // Read in place (no copy of the input: the output never shares its storage).
    ElementReader<typename From::storage> source(in, in.shape());
    dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
      using To = decltype(to_tag);
      auto o = out.mutable_data<typename To::storage>();
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = convert_element<To, From>(source.next());
    });
  });
}

}  // namespace onemodel::ew
