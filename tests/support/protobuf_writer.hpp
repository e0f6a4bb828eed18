// A protobuf wire-format writer for tests, fuzz seeds and hostile files. It writes exactly what
// it is told, including things a real encoder never would (overlong varints, wrong wire types,
// lengths that lie), so tests can build both valid and broken inputs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel::testing {

class ProtoWriter {
 public:
  // Low-level pieces.
  ProtoWriter& varint(std::uint64_t value);
  ProtoWriter& key(std::uint32_t field, std::uint32_t wire);  // any wire value, even 3, 4, 6, 7
  ProtoWriter& fixed32(std::uint32_t value);
  ProtoWriter& fixed64(std::uint64_t value);
  ProtoWriter& raw(std::string_view bytes);                   // appended as is

  // Whole fields.
  ProtoWriter& int_field(std::uint32_t field, std::int64_t value);     // wire 0, two's complement
  ProtoWriter& uint_field(std::uint32_t field, std::uint64_t value);   // wire 0
  ProtoWriter& float_field(std::uint32_t field, float value);          // wire 5
  ProtoWriter& double_field(std::uint32_t field, double value);        // wire 1
  ProtoWriter& fixed32_field(std::uint32_t field, std::uint32_t value);
  ProtoWriter& fixed64_field(std::uint32_t field, std::uint64_t value);
  ProtoWriter& bytes_field(std::uint32_t field, std::string_view bytes);  // wire 2 (string or bytes)
  ProtoWriter& message_field(std::uint32_t field, const ProtoWriter& message);
  // A length-delimited field whose length varint says `claimed_length`, followed by `payload`.
  ProtoWriter& lying_length_field(std::uint32_t field, std::uint64_t claimed_length, std::string_view payload);

  // Packed repeated fields (one length-delimited field).
  ProtoWriter& packed_varints(std::uint32_t field, std::span<const std::int64_t> values);
  ProtoWriter& packed_varints(std::uint32_t field, std::initializer_list<std::int64_t> values);
  ProtoWriter& packed_floats(std::uint32_t field, std::span<const float> values);
  ProtoWriter& packed_floats(std::uint32_t field, std::initializer_list<float> values);
  ProtoWriter& packed_doubles(std::uint32_t field, std::initializer_list<double> values);
  ProtoWriter& packed_fixed64(std::uint32_t field, std::initializer_list<std::uint64_t> values);

  const std::string& bytes() const noexcept { return bytes_; }
  std::size_t size() const noexcept { return bytes_.size(); }

 private:
  std::string bytes_;
};

// A varint's encoding on its own (for expected values and hand-made payloads).
std::string encode_varint(std::uint64_t value);

}  // namespace onemodel::testing
