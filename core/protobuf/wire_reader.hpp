// The protobuf wire reader (spec/onnx-import.md section 1). It walks the fields of one message
// inside a byte range of the input and never reads outside that range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/protobuf/parse_context.hpp"

namespace onemodel::pb {

enum class WireType : std::uint8_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// One field as it appears on the wire. Offsets are from the start of the input.
struct WireField {
  std::uint32_t number = 0;
  WireType wire = WireType::Varint;
  std::size_t key_offset = 0;
  std::size_t value_offset = 0;
  std::uint64_t value = 0;   // Varint, Fixed64, Fixed32 (the raw bits)
  std::size_t begin = 0;     // LengthDelimited: payload start
  std::size_t size = 0;      // LengthDelimited: payload length (checked against the range)
};

class WireReader {
 public:
  // Reads the range [begin, end) of ctx.input(); the caller guarantees end <= input size.
  WireReader(ParseContext& ctx, std::size_t begin, std::size_t end) noexcept
      : ctx_(ctx), begin_(begin), pos_(begin), end_(end) {}

  // Reads the next field; false at the end of the range. Throws ModelError(Malformed).
  bool next(WireField& field);

  // Reads one varint at the current position (also used for packed payloads).
  std::uint64_t read_varint();
  bool at_end() const noexcept { return pos_ == end_; }
  // Where the range (the message's payload) starts, for errors about the whole message.
  std::size_t begin() const noexcept { return begin_; }
  std::size_t position() const noexcept { return pos_; }

 private:
  ParseContext& ctx_;
  std::size_t begin_;
  std::size_t pos_;
  std::size_t end_;
};

}  // namespace onemodel::pb
