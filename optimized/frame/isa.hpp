// Instruction-set paths of the optimized kernels (DESIGN.md rules 4 and 7; spec-source
// overview.md, kernel paths). Chosen once per session from the hardware, capped by ONEMODEL_ISA.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace onemodel::opt {

// Ordered by width: a cap keeps every path at or below its level. Sse, Neon and Wasm are the
// 128-bit level of their platform; only one of them exists in a build. Avx512 (kernels-gemm.md,
// table under "Structure") is the widest x86-64 level; a kernel family without 512-bit code runs
// its AVX2 kernels on it (the CPU check for Avx512 includes AVX2 and FMA).
enum class Isa : std::uint8_t { Scalar = 0, Sse = 1, Neon = 2, Wasm = 3, Avx2 = 4, Avx512 = 5 };

// "scalar", "sse", "neon", "wasm", "avx2", "avx512".
std::string_view isa_name(Isa isa) noexcept;
// The session's kernel path name ("AVX-512", "AVX2+FMA", "SSE4.1", "NEON", "WASM-SIMD128", "Scalar").
std::string_view isa_path_name(Isa isa) noexcept;
// 0 scalar, 1 for a 128-bit path, 2 for AVX2, 3 for AVX-512.
int isa_level(Isa isa) noexcept;

// Every path this build can run on this CPU, scalar first, best last.
std::span<const Isa> available_isas() noexcept;
// The best available path, capped by the environment variable ONEMODEL_ISA (scalar, sse, avx2,
// avx512; sse means the 128-bit path of the platform). An unknown value is ignored (it cannot make a
// result wrong, only slower or faster), and reported by isa_cap_error().
Isa select_isa() noexcept;
// The unrecognised ONEMODEL_ISA value, empty when there is none.
std::string_view isa_cap_error() noexcept;
// Whether `isa` is in available_isas() (tests and tools report a missing path as not available).
bool isa_available(Isa isa) noexcept;
// The path named by isa_name() ("avx512", ...); false for an unknown name.
bool isa_from_name(std::string_view name, Isa& isa) noexcept;

}  // namespace onemodel::opt
