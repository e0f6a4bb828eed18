#include "reference/ops/random_draws.hpp"

#include <cmath>
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "core/session/run_control.hpp"
#include "reference/math/exact_math64.hpp"

namespace onemodel::random_draws {
namespace {

// The multipliers and Weyl increments of Philox4x32 (the SC11 paper, section 3.3).
constexpr std::uint32_t kM0 = 0xD2511F53u;
constexpr std::uint32_t kM1 = 0xCD9E8D57u;
constexpr std::uint32_t kW0 = 0x9E3779B9u;
constexpr std::uint32_t kW1 = 0xBB67AE85u;

// FNV-1a, 64 bits: the stream of a node without a seed (section 2).
std::uint64_t fnv1a64(std::string_view text) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) noexcept {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    const std::uint64_t p0 = std::uint64_t{kM0} * c[0];
    const std::uint64_t p1 = std::uint64_t{kM1} * c[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

std::uint64_t float_seed_bits(float seed) noexcept {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &seed, sizeof bits);
  return bits;
}

Source source_for(const RunContext& context, bool has_seed, std::uint64_t seed_bits) {
  Source s;
  if (has_seed) {
    // Section 2: the seed's bits; the high word is marked so that seeded keys stay apart from
    // the run seeds of unseeded nodes with the same low word.
    s.key = {static_cast<std::uint32_t>(seed_bits), static_cast<std::uint32_t>(seed_bits >> 32) ^ 0x5EED5EEDu};
    s.stream = 0;
    return s;
  }
  const RunControl* control = context.run_control();
  const std::uint64_t run_seed = control != nullptr ? control->random_seed() : 0;
  s.key = {static_cast<std::uint32_t>(run_seed), static_cast<std::uint32_t>(run_seed >> 32)};
  const auto& outputs = context.node().ir().outputs;
  s.stream = fnv1a64(outputs.empty() ? std::string_view{} : std::string_view(outputs[0]));
  return s;
}

std::array<std::uint32_t, 4> words(const Source& source, std::uint64_t index, std::uint32_t attempt) noexcept {
  // Section 3: counter = (index bits 0-31, index bits 32-47 | attempt << 16, stream low, stream
  // high). Element counts stay below 2^48 (spec/tensors.md section 3 limits a tensor's bytes).
  const std::array<std::uint32_t, 4> counter = {
      static_cast<std::uint32_t>(index),
      static_cast<std::uint32_t>((index >> 32) & 0xFFFFu) | (attempt << 16),
      static_cast<std::uint32_t>(source.stream),
      static_cast<std::uint32_t>(source.stream >> 32),
  };
  return philox4x32_10(counter, source.key);
}

double unit_double(std::uint32_t hi, std::uint32_t lo) noexcept {
  const std::uint64_t bits53 = (std::uint64_t{hi} << 21) | (lo >> 11);
  return static_cast<double>(bits53) * 0x1.0p-53;  // exact: 53 bits, scaled by a power of two
}

float unit_float(std::uint32_t word) noexcept {
  return static_cast<float>(word >> 8) * 0x1.0p-24f;  // exact: 24 bits
}

double standard_normal(const Source& source, std::uint64_t index) noexcept {
  // Section 5 (Marsaglia's polar method): a = 2u - 1 and b = 2v - 1 are exact; s = a*a + b*b
  // rounds twice; accepted when 0 < s < 1; the deviate is a * sqrt(-2 ln(s) / s), each operation
  // rounded once in the order written (log_f64 is the exact binary64 logarithm, sqrt is IEEE).
  for (std::uint32_t attempt = 0; attempt < kNormalAttempts; ++attempt) {
    const std::array<std::uint32_t, 4> w = words(source, index, attempt);
    const double a = 2.0 * unit_double(w[0], w[1]) - 1.0;
    const double b = 2.0 * unit_double(w[2], w[3]) - 1.0;
    const double s = a * a + b * b;
    if (s > 0.0 && s < 1.0) {
      const double l = exact::log_f64(s);
      return a * std::sqrt((-2.0 * l) / s);
    }
  }
  return 0.0;
}

}  // namespace onemodel::random_draws
