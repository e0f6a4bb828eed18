// The draws of the random operators (spec/ops/random.md): a counter-based generator, so that the
// value drawn for an output element depends only on the node's key, its stream and the element's
// index, never on the order in which elements, threads or nodes are computed. Every platform gives
// the same bits: the generator is integer arithmetic, and the transforms use only correctly rounded
// binary64 operations, the exact binary64 log (spec/exact-transcendentals.md section 15) and sqrt.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace onemodel {

class NodeInfo;
class RunContext;

namespace random_draws {

// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11):
// four 32-bit output words from a 128-bit counter and a 64-bit key (spec/ops/random.md section 1).
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                           std::array<std::uint32_t, 2> key) noexcept;

// Where a node's draws come from (section 2): the key and the stream of every element's counter.
struct Source {
  std::array<std::uint32_t, 2> key{};
  std::uint64_t stream = 0;
};

// The node's source for this run: a `seed` attribute fixes the key (the same draws on every run);
// without one the key is the run's RunOptions::random_seed and the stream is the hash of the
// node's first output name. `seed_bits` is the attribute's bit pattern (a float seed's binary32
// bits, Dropout's int64 seed as two's complement).
Source source_for(const RunContext& context, bool has_seed, std::uint64_t seed_bits);

// The bit pattern of a float `seed` attribute.
std::uint64_t float_seed_bits(float seed) noexcept;

// The four words of element `index`, attempt `attempt` (section 3).
std::array<std::uint32_t, 4> words(const Source& source, std::uint64_t index, std::uint32_t attempt) noexcept;

// Section 4: a uniform double in [0, 1) from two words (53 bits: (hi << 21) | (lo >> 11), times
// 2^-53), and a uniform float in [0, 1) from one word (its top 24 bits times 2^-24).
double unit_double(std::uint32_t hi, std::uint32_t lo) noexcept;
float unit_float(std::uint32_t word) noexcept;

// Section 5: a standard normal deviate for element `index` by the polar method, one attempt per
// counter, at most kNormalAttempts attempts (0 when all are rejected: probability below 1e-21).
inline constexpr std::uint32_t kNormalAttempts = 32;
double standard_normal(const Source& source, std::uint64_t index) noexcept;

}  // namespace random_draws
}  // namespace onemodel
