// SHA-256 (FIPS 180-4), written from the standard. Used by the structural dump (spec/dump.md)
// to fingerprint tensor bytes and doc strings.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace onemodel {

class Sha256 {
 public:
  Sha256() noexcept;
  void update(std::span<const std::byte> bytes) noexcept;
  void update(std::string_view text) noexcept;
  // Finishes the hash; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> finish() noexcept;

 private:
  void compress(const std::uint8_t* block) noexcept;

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lowercase hexadecimal of a digest (64 characters).
std::string to_hex(const std::array<std::uint8_t, 32>& digest);

std::string sha256_hex(std::span<const std::byte> bytes);
std::string sha256_hex(std::string_view text);

}  // namespace onemodel
