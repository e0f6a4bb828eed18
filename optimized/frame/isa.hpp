// Instruction-set paths of the optimized kernels (DESIGN.md rules 4 and 7; spec-source
// overview.md, kernel paths). Chosen once per session from the hardware, capped by ONEMODEL_ISA.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace onemodel::opt {

// Ordered by width: a cap keeps every path at or below its level. Sse, Neon and Wasm are the
// 128-bit level of their platform; only one of them exists in a build.
enum class Isa : std::uint8_t { Scalar = 0, Sse = 1, Neon = 2, Wasm = 3, Avx2 = 4 };

// "scalar", "sse", "neon", "wasm", "avx2".
std::string_view isa_name(Isa isa) noexcept;
// The session's kernel path name ("AVX2+FMA", "SSE4.1", "NEON", "WASM-SIMD128", "Scalar").
std::string_view isa_path_name(Isa isa) noexcept;
// 0 scalar, 1 for a 128-bit path, 2 for AVX2.
int isa_level(Isa isa) noexcept;

// Every path this build can run on this CPU, scalar first, best last.
std::span<const Isa> available_isas() noexcept;
// The best available path, capped by the environment variable ONEMODEL_ISA (scalar, sse, avx2;
// sse means the 128-bit path of the platform). An unknown value is ignored (it cannot make a
// result wrong, only slower or faster), and reported by isa_cap_error().
Isa select_isa() noexcept;
// The unrecognised ONEMODEL_ISA value, empty when there is none.
std::string_view isa_cap_error() noexcept;

}  // namespace onemodel::opt
