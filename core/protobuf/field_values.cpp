#include "core/protobuf/field_values.hpp"

#include <cstring>

#include "core/protobuf/utf8.hpp"

namespace onemodel::pb {

bool get_string(ParseContext& ctx, const WireField& f, const char* name, std::string& out) {
  if (f.wire != WireType::LengthDelimited) return false;
  const std::byte* p = ctx.input().data + f.begin;
  // spec/onnx-import.md section 1 (strings): invalid UTF-8 is an error.
  const std::size_t bad = first_invalid_utf8({p, f.size});
  if (bad != f.size) {
    PathScope scope(ctx, name);
    ctx.fail(ModelErrorKind::Malformed, "string field is not valid UTF-8", f.begin + bad);
  }
  out.assign(reinterpret_cast<const char*>(p), f.size);
  return true;
}

bool get_bytes(ParseContext& ctx, const WireField& f, std::string& out) {
  if (f.wire != WireType::LengthDelimited) return false;
  out.assign(reinterpret_cast<const char*>(ctx.input().data + f.begin), f.size);
  return true;
}

bool get_view(ParseContext& ctx, const WireField& f, ByteView& out) {
  if (f.wire != WireType::LengthDelimited) return false;
  out = f.size == 0 ? ByteView{} : ctx.input().slice(f.begin, f.size);
  return true;
}

bool get_int64(const WireField& f, std::int64_t& out) {
  if (f.wire != WireType::Varint) return false;
  out = static_cast<std::int64_t>(f.value);
  return true;
}

bool get_int32(const WireField& f, std::int32_t& out) {
  if (f.wire != WireType::Varint) return false;
  out = static_cast<std::int32_t>(static_cast<std::uint32_t>(f.value & 0xFFFFFFFFu));
  return true;
}

bool get_float(const WireField& f, float& out) {
  if (f.wire != WireType::Fixed32) return false;
  const auto bits = static_cast<std::uint32_t>(f.value);
  std::memcpy(&out, &bits, sizeof out);
  return true;
}

bool append_varints(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint64_t>& out) {
  if (f.wire == WireType::Varint) {
    out.push_back(f.value);
    return true;
  }
  if (f.wire != WireType::LengthDelimited) return false;
  PathScope scope(ctx, name);
  WireReader packed(ctx, f.begin, f.begin + f.size);
  while (!packed.at_end()) out.push_back(packed.read_varint());
  return true;
}

namespace {
template <class T>
bool append_fixed(ParseContext& ctx, const WireField& f, const char* name, WireType single, std::vector<T>& out) {
  if (f.wire == single) {
    out.push_back(static_cast<T>(f.value));
    return true;
  }
  if (f.wire != WireType::LengthDelimited) return false;
  if (f.size % sizeof(T) != 0) {
    PathScope scope(ctx, name);
    ctx.fail(ModelErrorKind::Malformed,
             "packed field of " + std::to_string(f.size) + " bytes is not a multiple of " +
                 std::to_string(sizeof(T)),
             f.value_offset);
  }
  const std::byte* p = ctx.input().data + f.begin;
  const std::size_t count = f.size / sizeof(T);
  out.reserve(out.size() + count);  // bounded by the bytes actually present
  for (std::size_t i = 0; i < count; ++i) {
    T v = 0;
    for (std::size_t b = 0; b < sizeof(T); ++b) {
      v |= static_cast<T>(static_cast<std::uint8_t>(p[i * sizeof(T) + b])) << (8 * b);
    }
    out.push_back(v);
  }
  return true;
}
}  // namespace

bool append_fixed32(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint32_t>& out) {
  return append_fixed(ctx, f, name, WireType::Fixed32, out);
}

bool append_fixed64(ParseContext& ctx, const WireField& f, const char* name, std::vector<std::uint64_t>& out) {
  return append_fixed(ctx, f, name, WireType::Fixed64, out);
}

}  // namespace onemodel::pb
