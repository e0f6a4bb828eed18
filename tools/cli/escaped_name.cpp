#include "tools/cli/escaped_name.hpp"

namespace onemodel::cli {

std::string escaped_name(std::string_view name) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == '\\') {
      out += "\\\\";
    } else if (byte > 0x20 && byte < 0x7f) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kDigits[byte >> 4]);
      out.push_back(kDigits[byte & 15]);
    }
  }
  return out;
}

}  // namespace onemodel::cli
