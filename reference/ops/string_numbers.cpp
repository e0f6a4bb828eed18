// spec/ops/strings.md section 1: the text forms of numbers used by Cast to and from STRING.
#include "reference/ops/string_numbers.hpp"

#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace onemodel::ew {
namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != b[i]) return false;
  }
  return true;
}

// The C library's decimal point in the current locale ('.' in the "C" locale).
char locale_point() {
  const std::lconv* conv = std::localeconv();
  return conv != nullptr && conv->decimal_point != nullptr && conv->decimal_point[0] != '\0' ? conv->decimal_point[0] : '.';
}

}  // namespace

std::string format_floating(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.8g", value);
  std::string out(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  const char point = locale_point();
  if (point != '.') {
    for (char& c : out) {
      if (c == point) c = '.';
    }
  }
  return out;
}

std::string format_signed(std::int64_t value) { return std::to_string(value); }
std::string format_unsigned(std::uint64_t value) { return std::to_string(value); }

std::optional<double> parse_floating(std::string_view text, bool as_float) {
  std::string_view s = trimmed(text);
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (equals_ignoring_case(body, "INF") || equals_ignoring_case(body, "INFINITY")) {
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  if (equals_ignoring_case(body, "NAN")) return std::nan("");
  // Decimal syntax only: digits, at most one point, at least one digit, then e[sign]digits.
  std::size_t i = 0;
  std::size_t digits = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
      ++i;
      ++digits;
    }
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
      ++i;
      ++digits;
    }
  }
  if (digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    const std::size_t start = i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i;
    if (i == start) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  // strtod and strtof round correctly; they read the locale's decimal point, so '.' becomes it.
  std::string copy(s);
  const char point = locale_point();
  if (point != '.') {
    for (char& c : copy) {
      if (c == '.') c = point;
    }
  }
  if (as_float) return static_cast<double>(std::strtof(copy.c_str(), nullptr));
  return std::strtod(copy.c_str(), nullptr);
}

std::optional<std::uint64_t> parse_integer_bits(std::string_view text) {
  std::string_view s = trimmed(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');  // modulo 2^64
  }
  return negative ? ~value + 1 : value;
}

}  // namespace onemodel::ew
