// What a CPU's core does with the instructions of a path, beyond which paths it has (isa.hpp):
// facts that choose between variants computing the same bits, never facts a result depends on.
#pragma once

#include <string_view>

namespace onemodel::opt {

// Whether the CPU with this CPUID vendor string and family (base plus extended family, leaf 1)
// runs a 512-bit vector instruction as two 256-bit halves: AMD family 0x19 (Zen 4; Zen 3, also
// 0x19, has no AVX-512, so the answer matters only where the AVX-512 path exists). Zen 5 (family
// 0x1A) has whole 512-bit pipes on its server parts. On Zen 4 a 512-bit broadcast from memory
// occupies a vector pipe, a 256-bit one does not (docs/kernel-performance.md, "Session 24").
bool splits_512bit_vectors(std::string_view vendor, unsigned family) noexcept;

// Whether the AVX-512 path runs its exact-mode product kernels in 256-bit halves
// (gemm_micro_halves_avx512.cpp): splits_512bit_vectors for this CPU, unless the environment
// variable ONEMODEL_AVX512_HALVES is "0" or "1" (benchmarks compare both on one machine) or "other"
// (the tuning this CPU would not choose: the kernel tests run once more with it, so both kernels
// are tested wherever AVX-512 exists). Read once per process. Either answer gives the same bits (exact-mode.md rule 5): it only changes the speed.
bool avx512_exact_halves() noexcept;

}  // namespace onemodel::opt
