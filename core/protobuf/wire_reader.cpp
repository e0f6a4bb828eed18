#include "core/protobuf/wire_reader.hpp"

#include <string>

namespace onemodel::pb {

// spec/onnx-import.md section 1 (varints): at most 10 bytes, the tenth may only be 0 or 1,
// a varint cut off by the end of the range is an error, overlong encodings are accepted.
std::uint64_t WireReader::read_varint() {
  const std::size_t start = pos_;
  const std::byte* data = ctx_.input().data;
  std::uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= end_) ctx_.fail(ModelErrorKind::Malformed, "truncated varint", start);
    const auto b = static_cast<std::uint8_t>(data[pos_]);
    ++pos_;
    if (i == 9 && b > 1) ctx_.fail(ModelErrorKind::Malformed, "varint overflows 64 bits", start);
    result |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return result;
  }
  // Unreachable: a tenth byte <= 1 has no continuation bit.
  ctx_.fail(ModelErrorKind::Malformed, "varint longer than 10 bytes", start);
}

bool WireReader::next(WireField& field) {
  if (pos_ >= end_) return false;
  field = WireField{};
  field.key_offset = pos_;
  // spec/onnx-import.md section 1 (keys): a varint of at most 32 bits, field 0 is an error.
  const std::uint64_t key = read_varint();
  if (key > 0xFFFFFFFFu) ctx_.fail(ModelErrorKind::Malformed, "field key exceeds 32 bits", field.key_offset);
  field.number = static_cast<std::uint32_t>(key >> 3);
  const auto wire = static_cast<std::uint32_t>(key & 7);
  if (field.number == 0) ctx_.fail(ModelErrorKind::Malformed, "field number 0", field.key_offset);
  field.value_offset = pos_;
  const std::byte* data = ctx_.input().data;
  switch (wire) {
    case 0:
      field.wire = WireType::Varint;
      field.value = read_varint();
      return true;
    case 1:
    case 5: {
      const std::size_t width = wire == 1 ? 8 : 4;
      if (end_ - pos_ < width) {
        ctx_.fail(ModelErrorKind::Malformed, "truncated fixed-width value", field.value_offset);
      }
      std::uint64_t v = 0;
      for (std::size_t i = 0; i < width; ++i) {
        v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data[pos_ + i])) << (8 * i);
      }
      pos_ += width;
      field.wire = wire == 1 ? WireType::Fixed64 : WireType::Fixed32;
      field.value = v;
      return true;
    }
    case 2: {
      // spec/onnx-import.md section 1 (lengths): read as 64 bits, compared with the remainder
      // before any slice is taken.
      const std::uint64_t length = read_varint();
      if (length > static_cast<std::uint64_t>(end_ - pos_)) {
        ctx_.fail(ModelErrorKind::Malformed,
                  "length " + std::to_string(length) + " exceeds the " +
                      std::to_string(end_ - pos_) + " remaining bytes",
                  field.value_offset);
      }
      field.wire = WireType::LengthDelimited;
      field.begin = pos_;
      field.size = static_cast<std::size_t>(length);
      pos_ += field.size;
      return true;
    }
    case 3:
    case 4:
      ctx_.fail(ModelErrorKind::Malformed, "group wire type " + std::to_string(wire) + " is not supported",
                field.key_offset);
    default:
      ctx_.fail(ModelErrorKind::Malformed, "invalid wire type " + std::to_string(wire), field.key_offset);
  }
}

}  // namespace onemodel::pb
