#include "core/onnx/typed_data.hpp"

namespace onemodel::onnx {

namespace {
template <class T>
void put_le(std::vector<std::byte>& out, T value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFF));
}
}  // namespace

std::vector<std::byte> convert_typed_field(const TensorFields& t, TypedField field, std::int32_t data_type) {
  std::vector<std::byte> out;
  switch (field) {
    case TypedField::Float:  // float, complex64: 4 bytes per entry
      out.reserve(t.float_data.size() * 4);
      for (std::uint32_t v : t.float_data) put_le(out, v, 4);
      break;
    case TypedField::Double:  // double, complex128: 8 bytes per entry
      out.reserve(t.double_data.size() * 8);
      for (std::uint64_t v : t.double_data) put_le(out, v, 8);
      break;
    case TypedField::Int64:
      out.reserve(t.int64_data.size() * 8);
      for (std::uint64_t v : t.int64_data) put_le(out, v, 8);
      break;
    case TypedField::Uint64: {  // uint64: 8 bytes; uint32: the low 32 bits
      const int width = data_type == 12 ? 4 : 8;
      out.reserve(t.uint64_data.size() * static_cast<std::size_t>(width));
      for (std::uint64_t v : t.uint64_data) put_le(out, v, width);
      break;
    }
    case TypedField::Int32: {
      const int bits = element_bits(data_type);
      if (bits == 6) {
        // One element per entry (low 6 bits), packed LSB-first four to three bytes.
        std::uint32_t acc = 0;
        int held = 0;
        for (std::uint64_t v : t.int32_data) {
          acc |= static_cast<std::uint32_t>(v & 0x3F) << held;
          held += 6;
          while (held >= 8) {
            out.push_back(static_cast<std::byte>(acc & 0xFF));
            acc >>= 8;
            held -= 8;
          }
        }
        if (held > 0) out.push_back(static_cast<std::byte>(acc & 0xFF));
      } else if (bits == 32) {
        for (std::uint64_t v : t.int32_data) put_le(out, v & 0xFFFFFFFFu, 4);
      } else if (bits == 16) {
        for (std::uint64_t v : t.int32_data) put_le(out, v & 0xFFFFu, 2);
      } else if (data_type == 9) {  // bool: any non-zero entry becomes 1
        for (std::uint64_t v : t.int32_data) out.push_back(std::byte{(v & 0xFFFFFFFFu) != 0 ? std::uint8_t{1} : std::uint8_t{0}});
      } else {  // 8-bit types: the low byte; 4-bit and 2-bit types: the low byte is one packed byte
        for (std::uint64_t v : t.int32_data) out.push_back(static_cast<std::byte>(v & 0xFF));
      }
      break;
    }
    case TypedField::String:
    case TypedField::None:
      break;
  }
  return out;
}

}  // namespace onemodel::onnx
