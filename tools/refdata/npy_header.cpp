// The .npy header dictionary (npy_header.hpp). Written from NumPy's format description (the
// header is an ASCII Python literal dict padded with spaces and ended by a newline).
#include "tools/refdata/npy_header.hpp"

#include "onemodel/error.hpp"
#include "onemodel/shape.hpp"

namespace onemodel::refdata {
namespace {

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& file, std::uint64_t base)
      : text_(text), file_(file), base_(base) {}

  NpyHeader parse() {
    // ASCII only: NumPy writes the dict with repr() of ASCII strings; any other byte means the
    // file was not written by NumPy's format code.
    for (std::size_t k = 0; k < text_.size(); ++k) {
      const auto byte = static_cast<unsigned char>(text_[k]);
      if (byte >= 0x80 || (byte < 0x20 && byte != '\n' && byte != '\t' && byte != '\r')) {
        pos_ = k;
        fail(ModelErrorKind::Malformed, "the header holds a byte that is not printable ASCII");
      }
    }
    NpyHeader header;
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::size_t key_at = pos_;
      const std::string key = read_string();
      expect(':');
      bool* seen = key == "descr" ? &has_descr : key == "fortran_order" ? &has_order : key == "shape" ? &has_shape : nullptr;
      if (seen == nullptr) {
        pos_ = key_at;
        fail(ModelErrorKind::Malformed, "unexpected key '" + key + "' (only descr, fortran_order and shape)");
      }
      if (*seen) {
        pos_ = key_at;
        fail(ModelErrorKind::InvalidModel, "the key '" + key + "' appears twice");
      }
      *seen = true;
      if (key == "descr") header.descr = read_string();
      else if (key == "fortran_order") header.fortran_order = read_bool();
      else header.shape = read_tuple();
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail(ModelErrorKind::Malformed, "expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail(ModelErrorKind::Malformed, "text after the dictionary");
    if (!has_descr || !has_order || !has_shape) {
      fail(ModelErrorKind::Malformed, "the header needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(ModelErrorKind kind, const std::string& why) const {
    throw ModelError(kind, ".npy header: " + why, file_, base_ + pos_, "npy.header");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(ModelErrorKind::Malformed, std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string read_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(ModelErrorKind::Malformed, "expected a quoted string");
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') fail(ModelErrorKind::Malformed, "escapes are not allowed in header strings");
      ++pos_;
    }
    if (pos_ >= text_.size()) fail(ModelErrorKind::Malformed, "unterminated string");
    std::string value(text_.substr(start, pos_ - start));
    ++pos_;
    return value;
  }
  bool read_bool() {
    skip_space();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(ModelErrorKind::Malformed, "fortran_order must be True or False");
  }
  // A Python tuple of non-negative integers: (), (5,), (2, 3). Each extent is bounded while its
  // digits are read, so no arithmetic can overflow; the element-count product is checked by the
  // caller with the tensor library's Shape.
  std::vector<std::int64_t> read_tuple() {
    expect('(');
    std::vector<std::int64_t> values;
    bool needs_comma = false;  // Python writes (5,): a one-element tuple needs its comma
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() == '-') fail(ModelErrorKind::Malformed, "a negative extent");
      if (peek() < '0' || peek() > '9') fail(ModelErrorKind::Malformed, "expected a non-negative integer extent");
      std::int64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        value = value * 10 + (peek() - '0');
        if (value > kMaxElements) fail(ModelErrorKind::Unsupported, "an extent above 2^31-1");
        ++pos_;
      }
      if (values.size() == static_cast<std::size_t>(kMaxRank)) {
        fail(ModelErrorKind::Unsupported, "more than " + std::to_string(kMaxRank) + " dimensions");
      }
      values.push_back(value);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        needs_comma = false;
        continue;
      }
      needs_comma = true;
      if (peek() != ')') fail(ModelErrorKind::Malformed, "expected ',' or ')' in the shape");
    }
    if (needs_comma && values.size() == 1) fail(ModelErrorKind::Malformed, "(n) is not a tuple; NumPy writes (n,)");
    ++pos_;
    return values;
  }

  std::string_view text_;
  const std::string& file_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, const std::string& file, std::uint64_t text_offset) {
  return HeaderParser(text, file, text_offset).parse();
}

}  // namespace onemodel::refdata
