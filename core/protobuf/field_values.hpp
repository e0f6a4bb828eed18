// Typed access to wire fields (spec/onnx-import.md section 1). Each getter returns false when
// the field arrived with a wire type that does not fit its declared type: such a field is
// skipped, as protobuf does. Repeated scalars accept packed and unpacked elements, mixed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/wire_reader.hpp"

namespace onemodel::pb {

// `string` fields: valid UTF-8 or ModelError(Malformed) at `<path>.<name>`.
bool get_string(ParseContext& ctx, const WireField& f, const char* name, std::string& out);
// `bytes` fields: never decoded.
bool get_bytes(ParseContext& ctx, const WireField& f, std::string& out);
// A zero-copy view of a `bytes` field into the input.
bool get_view(ParseContext& ctx, const WireField& f, ByteView& out);
bool get_int64(const WireField& f, std::int64_t& out);
// int32 and enum fields keep the low 32 bits of the varint.
bool get_int32(const WireField& f, std::int32_t& out);
bool get_float(const WireField& f, float& out);

// Repeated scalars. Varint elements keep all 64 bits (the caller narrows int32 to 32 bits).
bool append_varints(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint64_t>& out);
bool append_fixed32(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint32_t>& out);
bool append_fixed64(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint64_t>& out);

// Reads a nested message: one nesting level, one path segment, then `body(WireReader&)`.
template <class Body>
bool read_message(ParseContext& ctx, const WireField& f, const char* name, std::int64_t index, Body&& body) {
  if (f.wire != WireType::LengthDelimited) return false;
  PathScope scope(ctx, name, index);
  ctx.enter_message(f.key_offset);
  WireReader reader(ctx, f.begin, f.begin + f.size);
  std::forward<Body>(body)(reader);
  ctx.leave_message();
  return true;
}

}  // namespace onemodel::pb
