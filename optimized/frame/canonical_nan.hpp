// The canonical NaN of exact mode (exact-mode.md rule 4: every NaN stored is 0x7FC00000) for the
// scalar code of the kernels; the vector paths build the same bits in their own registers.
#pragma once

#include <cstdint>

namespace onemodel::opt {

inline constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;

// v, or the canonical NaN when v is any NaN.
inline float canonical_nan(float v) noexcept { return v != v ? __builtin_bit_cast(float, kCanonicalNanBits) : v; }

}  // namespace onemodel::opt
