#include "tests/support/protobuf_writer.hpp"

#include <cstring>

namespace onemodel::testing {

std::string encode_varint(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

ProtoWriter& ProtoWriter::varint(std::uint64_t value) {
  bytes_ += encode_varint(value);
  return *this;
}

ProtoWriter& ProtoWriter::key(std::uint32_t field, std::uint32_t wire) {
  return varint((static_cast<std::uint64_t>(field) << 3) | (wire & 7));
}

ProtoWriter& ProtoWriter::fixed32(std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return *this;
}

ProtoWriter& ProtoWriter::fixed64(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return *this;
}

ProtoWriter& ProtoWriter::raw(std::string_view bytes) {
  bytes_.append(bytes);
  return *this;
}

ProtoWriter& ProtoWriter::int_field(std::uint32_t field, std::int64_t value) {
  return key(field, 0).varint(static_cast<std::uint64_t>(value));
}

ProtoWriter& ProtoWriter::uint_field(std::uint32_t field, std::uint64_t value) { return key(field, 0).varint(value); }

ProtoWriter& ProtoWriter::float_field(std::uint32_t field, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return key(field, 5).fixed32(bits);
}

ProtoWriter& ProtoWriter::double_field(std::uint32_t field, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return key(field, 1).fixed64(bits);
}

ProtoWriter& ProtoWriter::fixed32_field(std::uint32_t field, std::uint32_t value) { return key(field, 5).fixed32(value); }
ProtoWriter& ProtoWriter::fixed64_field(std::uint32_t field, std::uint64_t value) { return key(field, 1).fixed64(value); }

ProtoWriter& ProtoWriter::bytes_field(std::uint32_t field, std::string_view bytes) {
  key(field, 2).varint(bytes.size());
  return raw(bytes);
}

ProtoWriter& ProtoWriter::message_field(std::uint32_t field, const ProtoWriter& message) {
  return bytes_field(field, message.bytes());
}

ProtoWriter& ProtoWriter::lying_length_field(std::uint32_t field, std::uint64_t claimed_length, std::string_view payload) {
  key(field, 2).varint(claimed_length);
  return raw(payload);
}

ProtoWriter& ProtoWriter::packed_varints(std::uint32_t field, std::span<const std::int64_t> values) {
  std::string payload;
  for (std::int64_t v : values) payload += encode_varint(static_cast<std::uint64_t>(v));
  return bytes_field(field, payload);
}

ProtoWriter& ProtoWriter::packed_varints(std::uint32_t field, std::initializer_list<std::int64_t> values) {
  return packed_varints(field, std::span<const std::int64_t>(values.begin(), values.size()));
}

ProtoWriter& ProtoWriter::packed_floats(std::uint32_t field, std::span<const float> values) {
  ProtoWriter payload;
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    payload.fixed32(bits);
  }
  return bytes_field(field, payload.bytes());
}

ProtoWriter& ProtoWriter::packed_floats(std::uint32_t field, std::initializer_list<float> values) {
  return packed_floats(field, std::span<const float>(values.begin(), values.size()));
}

ProtoWriter& ProtoWriter::packed_doubles(std::uint32_t field, std::initializer_list<double> values) {
  ProtoWriter payload;
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    payload.fixed64(bits);
  }
  return bytes_field(field, payload.bytes());
}

ProtoWriter& ProtoWriter::packed_fixed64(std::uint32_t field, std::initializer_list<std::uint64_t> values) {
  ProtoWriter payload;
  for (std::uint64_t v : values) payload.fixed64(v);
  return bytes_field(field, payload.bytes());
}

}  // namespace onemodel::testing
