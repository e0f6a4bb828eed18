// The 64-byte header of a OneModel file (spec/format.md section 1.1): decoding with every check
// against the real file length, and encoding.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace onemodel {

inline constexpr std::size_t kHeaderBytes = 64;
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{512} << 20;
inline constexpr std::uint64_t kDataAlignment = 64;

struct FormatHeader {
  std::uint32_t version = kFormatVersion;
  std::uint32_t flags = 0;
  std::uint64_t manifest_offset = kHeaderBytes;
  std::uint64_t manifest_length = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t data_length = 0;
  std::uint64_t file_length = 0;
  std::uint64_t reserved = 0;
};

// Decodes and checks the header of a file of `file.size()` bytes. Throws ModelError naming the
// header field (`header.flags`) and its offset. After it returns, the manifest and data ranges
// lie inside `file`.
FormatHeader read_header(std::span<const std::byte> file, const std::string& input_name);

std::array<std::byte, kHeaderBytes> encode_header(const FormatHeader& header) noexcept;

}  // namespace onemodel
