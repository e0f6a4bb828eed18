// The strict .npy reader (npy_reader.hpp). The preamble is NumPy's format: the magic
// "\x93NUMPY", a major and a minor version byte, the header length (2 bytes little-endian for
// version 1, 4 bytes for versions 2 and 3), the header text, then the raw C-order data.
#include "tools/refdata/npy_reader.hpp"

#include <bit>
#include <cstdint>
#include <string_view>

#include "core/io/file_bytes.hpp"
#include "onemodel/error.hpp"
#include "onemodel/tensor_error.hpp"
#include "tools/refdata/npy_header.hpp"

namespace onemodel::refdata {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

std::uint64_t read_le(std::span<const std::byte> bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < width; ++k) value |= std::uint64_t{std::to_integer<std::uint8_t>(bytes[at + k])} << (8 * k);
  return value;
}

}  // namespace

DType npy_descr_dtype(const std::string& descr, const std::string& file) {
  struct Entry {
    std::string_view code;
    DType type;
  };
  static constexpr Entry kTypes[] = {
      {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64}, {"i1", DType::I8},  {"u1", DType::U8},
      {"i2", DType::I16}, {"u2", DType::U16}, {"i4", DType::I32}, {"u4", DType::U32}, {"i8", DType::I64},
      {"u8", DType::U64}, {"b1", DType::Bool},
  };
  if (descr.size() == 3) {
    const char order = descr[0];
    const std::string_view code = std::string_view(descr).substr(1);
    for (const Entry& entry : kTypes) {
      if (code != entry.code) continue;
      const bool one_byte = dtype_size(entry.type) == 1;
      // NumPy writes '|' for one-byte types and '<' or '>' for the others.
      if (one_byte && order == '|') return entry.type;
      if (!one_byte && order == '<') return entry.type;
      if (!one_byte && order == '>') {
        throw ModelError(ModelErrorKind::Unsupported, "dtype '" + descr + "' is big-endian; only little-endian is read",
                         file, std::nullopt, "npy.header.descr");
      }
    }
  }
  throw ModelError(ModelErrorKind::Unsupported,
                   "dtype '" + descr + "' is not supported (<f2 <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1 are)", file,
                   std::nullopt, "npy.header.descr");
}

Tensor parse_npy(std::span<const std::byte> bytes, const std::string& file) {
  if (bytes.size() < 10) {
    throw ModelError(ModelErrorKind::Malformed,
                     "not a .npy file: " + std::to_string(bytes.size()) + " bytes is shorter than the preamble", file,
                     0, "npy.magic");
  }
  for (std::size_t k = 0; k < kMagic.size(); ++k) {
    if (std::to_integer<char>(bytes[k]) != kMagic[k]) {
      throw ModelError(ModelErrorKind::Malformed, "not a .npy file: the magic string is missing", file, k, "npy.magic");
    }
  }
  const int major = std::to_integer<int>(bytes[6]);
  const int minor = std::to_integer<int>(bytes[7]);
  if ((major < 1 || major > 3) || minor != 0) {
    throw ModelError(ModelErrorKind::Unsupported,
                     ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                         " is not supported (1.0, 2.0 and 3.0 are)",
                     file, 6, "npy.version");
  }
  const std::size_t length_width = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + length_width;
  if (bytes.size() < header_start) {
    throw ModelError(ModelErrorKind::Malformed, "truncated .npy preamble", file, bytes.size(), "npy.header");
  }
  const std::uint64_t header_length = read_le(bytes, 8, length_width);
  if (header_length > bytes.size() - header_start) {
    throw ModelError(ModelErrorKind::Malformed,
                     "the header length " + std::to_string(header_length) + " reaches past the end of the file (" +
                         std::to_string(bytes.size() - header_start) + " bytes follow the preamble)",
                     file, 8, "npy.header");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + header_start),
                              static_cast<std::size_t>(header_length));
  const NpyHeader header = parse_npy_header(text, file, header_start);
  const DType type = npy_descr_dtype(header.descr, file);
  if (header.fortran_order) {
    throw ModelError(ModelErrorKind::Unsupported, "Fortran-order arrays are not read; save the array in C order", file,
                     std::nullopt, "npy.header.fortran_order");
  }
  // The checked Shape and byte-size arithmetic of the tensor library (spec/tensors.md section 3):
  // extents are already <= 2^31-1, and the products are checked there in 64 bits.
  Shape shape;
  std::int64_t byte_size = 0;
  try {
    shape = Shape(std::span<const std::int64_t>(header.shape));
    byte_size = checked_byte_size(shape, type);
  } catch (const TensorError& e) {
    throw ModelError(ModelErrorKind::Unsupported, "the shape is beyond the tensor limits: " + e.message(), file,
                     std::nullopt, "npy.header.shape");
  }
  const std::size_t data_start = header_start + static_cast<std::size_t>(header_length);
  const std::size_t present = bytes.size() - data_start;
  if (present != static_cast<std::size_t>(byte_size)) {
    throw ModelError(ModelErrorKind::InvalidModel,
                     "the data holds " + std::to_string(present) + " bytes; shape " + shape.to_string() + " of '" +
                         header.descr + "' needs " + std::to_string(byte_size),
                     file, data_start, "npy.data");
  }
  const std::span<const std::byte> data = bytes.subspan(data_start);
  if (type == DType::Bool) {
    // spec/tensors.md section 2: a bool is stored as one byte 0 or 1; NumPy writes only those.
    for (std::size_t k = 0; k < data.size(); ++k) {
      if (std::to_integer<std::uint8_t>(data[k]) > 1) {
        throw ModelError(ModelErrorKind::InvalidModel, "a bool element is neither 0 nor 1", file, data_start + k,
                         "npy.data");
      }
    }
  }
  return Tensor::from_bytes(type, shape, data);
}

Tensor read_npy_file(const std::filesystem::path& path) {
  const ByteView bytes = load_file_bytes(path);
  return parse_npy(bytes.span(), path.string());
}

}  // namespace onemodel::refdata
