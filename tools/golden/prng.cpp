#include "tools/golden/prng.hpp"

#include <cstring>

namespace onemodel::golden {

std::uint64_t Prng::next() noexcept {
  state_ += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint32_t Prng::below(std::uint32_t bound) noexcept {
  return static_cast<std::uint32_t>((next() >> 32) % bound);
}

float Prng::symmetric() noexcept {
  const std::int32_t k = static_cast<std::int32_t>(below(4097)) - 2048;
  return static_cast<float>(k) / 1024.0f;
}

float Prng::positive() noexcept { return static_cast<float>(below(2049)) / 1024.0f; }

float Prng::any_bits() noexcept { return float_from_bits(static_cast<std::uint32_t>(next() >> 32)); }

std::vector<float> symmetric_values(Prng& prng, std::int64_t count, float scale) {
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = prng.symmetric() * scale;
  return values;
}

float float_from_bits(std::uint32_t bits) noexcept {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace onemodel::golden

namespace onemodel::golden {

Prng prng_for(const char* name) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const char* p = name; *p != '\0'; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 0x100000001B3ull;
  }
  return Prng(h);
}

}  // namespace onemodel::golden
