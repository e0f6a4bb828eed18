#include "core/conformance/npy.hpp"

#include <bit>
#include <cstdint>
#include <fstream>
#include <string_view>

#include "core/graph/tensor_bytes.hpp"
#include "core/io/file_bytes.hpp"
#include "onemodel/error.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::conformance {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

struct Header {
  std::string descr;
  bool fortran_order = false;
  bool has_descr = false, has_order = false, has_shape = false;
  std::vector<std::int64_t> shape;
};

// A reader of the Python literal dict NumPy writes: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. Only these three keys, each once.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Header parse() {
    Header header;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = read_string();
      expect(':');
      if (key == "descr" && !header.has_descr) {
        header.descr = read_string();
        header.has_descr = true;
      } else if (key == "fortran_order" && !header.has_order) {
        header.fortran_order = read_bool();
        header.has_order = true;
      } else if (key == "shape" && !header.has_shape) {
        header.shape = read_tuple();
        header.has_shape = true;
      } else {
        fail("unexpected or repeated key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("text after the dictionary");
    if (!header.has_descr || !header.has_order || !header.has_shape) {
      fail("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw NpyError("malformed .npy header at character " + std::to_string(pos_) + ": " + why);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string read_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') fail("escapes are not supported");
      ++pos_;
    }
    if (pos_ >= text_.size()) fail("unterminated string");
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
    fail("expected True or False");
  }
  std::vector<std::int64_t> read_tuple() {
    expect('(');
    std::vector<std::int64_t> values;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer extent");
      std::int64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        // spec/conformance.md section 5: checked before use; extents above 2^31-1 are refused later.
        if (value > (std::int64_t{1} << 40)) fail("extent too large");
        value = value * 10 + (peek() - '0');
        ++pos_;
      }
      values.push_back(value);
      if (values.size() > static_cast<std::size_t>(kMaxRank)) fail("more than 8 dimensions");
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')'");
    }
    ++pos_;
    return values;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

DType dtype_from_descr(const std::string& descr) {
  if (descr.size() < 2) throw NpyError("dtype '" + descr + "' is not supported");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  struct Entry {
    const char* code;
    DType type;
  };
  static constexpr Entry kTypes[] = {
      {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64}, {"i1", DType::I8},  {"u1", DType::U8},
      {"i2", DType::I16}, {"u2", DType::U16}, {"i4", DType::I32}, {"u4", DType::U32}, {"i8", DType::I64},
      {"u8", DType::U64}, {"b1", DType::Bool},
  };
  for (const Entry& entry : kTypes) {
    if (code != entry.code) continue;
    const bool one_byte = dtype_size(entry.type) == 1;
    if (order == '>' && !one_byte) throw NpyError("dtype '" + descr + "' is big-endian; only little-endian is supported");
    if (order != '<' && order != '=' && order != '|' && !(one_byte && order == '>')) {
      throw NpyError("dtype '" + descr + "' has an unknown byte-order character");
    }
    if (order == '|' && !one_byte) throw NpyError("dtype '" + descr + "' has no byte order");
    return entry.type;
  }
  throw NpyError("dtype '" + descr +
                 "' is not supported (supported: bool, int8..int64, uint8..uint64, float16, float32, float64)");
}

std::uint64_t read_le(std::span<const std::byte> bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < width; ++k) value |= std::uint64_t(std::to_integer<std::uint8_t>(bytes[at + k])) << (8 * k);
  return value;
}

}  // namespace

std::string npy_descr(DType type) {
  switch (type) {
    case DType::F16: return "<f2";
    case DType::BF16: return "<u2";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    case DType::Bool: return "|b1";
    case DType::I16: return "<i2";
    case DType::U16: return "<u2";
    case DType::I32: return "<i4";
    case DType::U32: return "<u4";
    case DType::I64: return "<i8";
    case DType::U64: return "<u8";
    case DType::String: break;  // object arrays are not written (spec/tensors.md section 8)
    // NumPy has no 8-bit floats: their raw bits, as for bfloat16 (spec/tensors.md section 2.1).
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: return "|u1";
    // spec/tensors.md section 2.2: one element per byte; NumPy has no 4- or 2-bit types, so the
    // signed ones are int8 (sign-extended) and the others uint8 (FLOAT4E2M1: its 4-bit code).
    case DType::I4:
    case DType::I2: return "|i1";
    case DType::U4:
    case DType::U2:
    case DType::F4E2M1: return "|u1";
  }
  throw NpyError("element type " + std::to_string(static_cast<int>(type)) + " has no .npy dtype");
}

Tensor parse_npy(std::span<const std::byte> bytes) {
  if (bytes.size() < 10) throw NpyError("not a .npy file: " + std::to_string(bytes.size()) + " bytes is too short");
  for (std::size_t k = 0; k < kMagic.size(); ++k) {
    if (std::to_integer<char>(bytes[k]) != kMagic[k]) throw NpyError("not a .npy file: the magic string is missing");
  }
  const int major = std::to_integer<int>(bytes[6]);
  std::size_t header_start = 0;
  std::uint64_t header_length = 0;
  if (major == 1) {
    header_start = 10;
    header_length = read_le(bytes, 8, 2);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw NpyError("truncated .npy header");
    header_start = 12;
    header_length = read_le(bytes, 8, 4);
  } else {
    throw NpyError(".npy format version " + std::to_string(major) + "." +
                   std::to_string(std::to_integer<int>(bytes[7])) + " is not supported (1.0 to 3.0 are)");
  }
  if (header_length > bytes.size() - header_start) {
    throw NpyError("truncated .npy header: " + std::to_string(header_length) + " bytes announced, " +
                   std::to_string(bytes.size() - header_start) + " present");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + header_start),
                              static_cast<std::size_t>(header_length));
  const Header header = HeaderParser(text).parse();
  if (header.fortran_order) throw NpyError("Fortran-order arrays are not supported; save the array in C order");
  const DType type = dtype_from_descr(header.descr);
  Shape shape;
  std::int64_t byte_size = 0;
  try {
    shape = Shape(std::span<const std::int64_t>(header.shape));
    byte_size = checked_byte_size(shape, type);
  } catch (const TensorError& e) {
    std::string extents;
    for (std::int64_t extent : header.shape) extents += (extents.empty() ? "" : ", ") + std::to_string(extent);
    throw NpyError("shape (" + extents + ") is beyond the tensor limits: " + e.message());
  }
  const std::size_t data_start = header_start + static_cast<std::size_t>(header_length);
  const std::size_t present = bytes.size() - data_start;
  if (present != static_cast<std::size_t>(byte_size)) {
    throw NpyError("the data holds " + std::to_string(present) + " bytes, the header's shape " + shape.to_string() +
                   " and dtype '" + header.descr + "' need " + std::to_string(byte_size));
  }
  std::span<const std::byte> data = bytes.subspan(data_start);
  if (type != DType::Bool) return Tensor::from_bytes(type, shape, data);
  // Bool storage is one byte 0 or 1 (spec/tensors.md section 2): other values are normalised.
  std::vector<std::byte> normalised(data.size());
  for (std::size_t k = 0; k < data.size(); ++k) normalised[k] = std::byte{data[k] != std::byte{0}};
  return Tensor::from_bytes(type, shape, normalised);
}

Tensor read_npy(const std::filesystem::path& path) {
  // load_file_bytes refuses a directory or a FIFO without blocking (a FIFO given as an input would
  // otherwise wait for a writer) and maps a large file instead of copying it.
  ByteView bytes;
  try {
    bytes = load_file_bytes(path);
  } catch (const ModelError& e) {
    throw NpyError(path.string() + ": " + e.message());
  }
  // A .npy file beyond the tensor limit plus a large header cannot be valid: refuse before
  // allocating (spec/conformance.md section 5).
  if (bytes.size > static_cast<std::uint64_t>(kMaxBufferBytes + (std::int64_t{1} << 20))) {
    throw NpyError(path.string() + ": the file is too large");
  }
  try {
    return parse_npy(bytes.span());
  } catch (const NpyError& e) {
    throw NpyError(path.string() + ": " + e.what());
  }
}

namespace {

// Everything before the data: magic, version, header length and the padded header.
std::string npy_prefix(const Tensor& tensor) {
  std::string header = "{'descr': '" + npy_descr(tensor.dtype()) + "', 'fortran_order': False, 'shape': (";
  // Python's tuple repr: "(2, 3)", "(5,)", "()".
  for (int d = 0; d < tensor.rank(); ++d) header += (d > 0 ? ", " : "") + std::to_string(tensor.shape()[d]);
  if (tensor.rank() == 1) header += ",";
  header += "), }";
  // As NumPy writes it (so the bytes match np.save): room for the first extent to grow to 21
  // digits, then spaces and a newline so that the data starts at a multiple of 64.
  if (tensor.rank() > 0) header.append(21 - std::to_string(tensor.shape()[0]).size(), ' ');
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string prefix(kMagic.begin(), kMagic.end());
  prefix += '\x01';
  prefix += '\x00';
  prefix += static_cast<char>(header.size() & 0xFF);
  prefix += static_cast<char>(header.size() >> 8);
  return prefix + header;
}

}  // namespace

std::vector<std::byte> npy_bytes(const Tensor& tensor) {
  const std::string prefix = npy_prefix(tensor);
  const std::size_t data_size = static_cast<std::size_t>(tensor.element_count()) * dtype_size(tensor.dtype());
  std::vector<std::byte> out(prefix.size() + data_size);
  for (std::size_t k = 0; k < prefix.size(); ++k) out[k] = static_cast<std::byte>(prefix[k]);
  if (data_size > 0) tensor.copy_to(std::span<std::byte>(out).subspan(prefix.size()));
  return out;
}

void write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  // The data goes from the tensor to the file without a copy of it in memory (issue 11: a 2 GiB
  // output written by `onemodel run` needs no second 2 GiB); a non-contiguous one is made so first.
  const Tensor data = tensor.contiguous();
  const std::string prefix = npy_prefix(data);
  const std::span<const std::byte> bytes = tensor_bytes(data);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw NpyError(path.string() + ": cannot create the file");
  out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw NpyError(path.string() + ": cannot write the file");
}

}  // namespace onemodel::conformance
