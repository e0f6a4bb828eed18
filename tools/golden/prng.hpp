// The golden tool's input generator. It must give the same numbers on every platform and standard
// library, so it is an integer generator (SplitMix64) and floats are made from integer ratios with
// power-of-two denominators (exactly representable, no rounding anywhere). No std::
// distributions: their algorithms are not specified and differ between standard libraries.
#pragma once

#include <cstdint>
#include <vector>

namespace onemodel::golden {

class Prng {
 public:
  explicit Prng(std::uint64_t seed) noexcept : state_(seed) {}

  // SplitMix64 (Steele, Lea, Flood 2014): one 64-bit output per call.
  std::uint64_t next() noexcept;
  // An integer in [0, bound); bound > 0. The tiny modulo bias does not matter for test data.
  std::uint32_t below(std::uint32_t bound) noexcept;
  // A multiple of 1/1024 in [-2, 2]: 4097 possible values, each exact in float32.
  float symmetric() noexcept;
  // A multiple of 1/1024 in [0, 2].
  float positive() noexcept;
  // Any float32 bit pattern (NaNs, infinities and subnormals included).
  float any_bits() noexcept;

 private:
  std::uint64_t state_;
};

// `count` values from prng.symmetric(), scaled by `scale` (a power of two keeps them exact).
std::vector<float> symmetric_values(Prng& prng, std::int64_t count, float scale = 1.0f);

// A float32 from its bit pattern (memcpy: emscripten's libc++ lacks std::bit_cast).
float float_from_bits(std::uint32_t bits) noexcept;

}  // namespace onemodel::golden

namespace onemodel::golden {

// A generator seeded from a case's name (FNV-1a, 64 bits), so each case's data is fixed by its
// name alone.
Prng prng_for(const char* name) noexcept;

}  // namespace onemodel::golden
