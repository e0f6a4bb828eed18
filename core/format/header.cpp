// spec/format.md section 1.1: every header field is checked against the real file length
// before the manifest is read or anything is allocated.
#include "core/format/header.hpp"

#include <cstring>

#include "onemodel/error.hpp"

namespace onemodel {
namespace {

constexpr char kMagic[8] = {'O', 'N', 'E', 'M', 'O', 'D', 'E', 'L'};
constexpr std::uint64_t kMaxU64Field = (std::uint64_t{1} << 63) - 1;

std::uint64_t load_le(std::span<const std::byte> bytes, std::size_t offset, std::size_t size) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    value |= std::uint64_t{static_cast<std::uint8_t>(bytes[offset + i])} << (8 * i);
  }
  return value;
}

void store_le(std::byte* out, std::uint64_t value, std::size_t size) noexcept {
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

[[noreturn]] void fail(ModelErrorKind kind, const std::string& message, const std::string& input_name,
                       std::uint64_t offset, const char* field) {
  throw ModelError(kind, message, input_name, offset, std::string("header.") + field);
}

}  // namespace

FormatHeader read_header(std::span<const std::byte> file, const std::string& input_name) {
  using K = ModelErrorKind;
  if (file.size() < 8 || std::memcmp(file.data(), kMagic, 8) != 0) {
    fail(K::Malformed, "not a OneModel file (bad magic)", input_name, 0, "magic");
  }
  if (file.size() < kHeaderBytes) {
    fail(K::Malformed, "truncated header: the file has " + std::to_string(file.size()) + " bytes", input_name,
         file.size(), "file_length");
  }
  FormatHeader h;
  h.version = static_cast<std::uint32_t>(load_le(file, 8, 4));
  h.flags = static_cast<std::uint32_t>(load_le(file, 12, 4));
  h.manifest_offset = load_le(file, 16, 8);
  h.manifest_length = load_le(file, 24, 8);
  h.data_offset = load_le(file, 32, 8);
  h.data_length = load_le(file, 40, 8);
  h.file_length = load_le(file, 48, 8);
  h.reserved = load_le(file, 56, 8);
  const std::uint64_t real_length = file.size();

  if (h.version != kFormatVersion) {
    fail(K::Unsupported, "format version " + std::to_string(h.version) + " (this reader reads version 1)",
         input_name, 8, "version");
  }
  if (h.flags != 0) {
    fail(K::Unsupported, "flags " + std::to_string(h.flags) + " (must be 0)", input_name, 12, "flags");
  }
  const struct {
    std::uint64_t value;
    std::uint64_t offset;
    const char* name;
  } u64_fields[] = {{h.manifest_offset, 16, "manifest_offset"}, {h.manifest_length, 24, "manifest_length"},
                    {h.data_offset, 32, "data_offset"},         {h.data_length, 40, "data_length"},
                    {h.file_length, 48, "file_length"},         {h.reserved, 56, "reserved"}};
  for (const auto& field : u64_fields) {
    if (field.value > kMaxU64Field) {
      fail(K::Malformed, std::string(field.name) + " exceeds 2^63-1", input_name, field.offset, field.name);
    }
  }
  // file_length first: a truncated or extended file is noticed before any other field is trusted.
  if (h.file_length != real_length) {
    fail(K::Malformed,
         "file_length is " + std::to_string(h.file_length) + " but the file has " + std::to_string(real_length) +
             " bytes (truncated or extended)",
         input_name, 48, "file_length");
  }
  if (h.reserved != 0) fail(K::Malformed, "reserved field is not zero", input_name, 56, "reserved");
  if (h.manifest_offset != kHeaderBytes) {
    fail(K::Malformed, "manifest_offset must be 64", input_name, 16, "manifest_offset");
  }
  // All values are below 2^63, so the sums below cannot wrap.
  if (h.manifest_length > real_length - kHeaderBytes) {
    fail(K::Malformed, "manifest extends past the end of the file", input_name, 24, "manifest_length");
  }
  if (h.manifest_length > kMaxManifestBytes) {
    fail(K::Unsupported, "manifest of " + std::to_string(h.manifest_length) + " bytes exceeds the 512 MiB limit",
         input_name, 24, "manifest_length");
  }
  if (h.data_offset % kDataAlignment != 0) {
    fail(K::Malformed, "data_offset is not a multiple of 64", input_name, 32, "data_offset");
  }
  if (h.data_offset < kHeaderBytes + h.manifest_length) {
    fail(K::Malformed, "data_offset overlaps the manifest", input_name, 32, "data_offset");
  }
  if (h.data_offset > real_length) {
    fail(K::Malformed, "data_offset is past the end of the file", input_name, 32, "data_offset");
  }
  if (h.data_length != real_length - h.data_offset) {
    fail(K::Malformed, "data_length is not file length - data_offset", input_name, 40, "data_length");
  }
  return h;
}

std::array<std::byte, kHeaderBytes> encode_header(const FormatHeader& h) noexcept {
  std::array<std::byte, kHeaderBytes> out{};
  std::memcpy(out.data(), kMagic, 8);
  store_le(out.data() + 8, h.version, 4);
  store_le(out.data() + 12, h.flags, 4);
  store_le(out.data() + 16, h.manifest_offset, 8);
  store_le(out.data() + 24, h.manifest_length, 8);
  store_le(out.data() + 32, h.data_offset, 8);
  store_le(out.data() + 40, h.data_length, 8);
  store_le(out.data() + 48, h.file_length, 8);
  store_le(out.data() + 56, h.reserved, 8);
  return out;
}

}  // namespace onemodel
