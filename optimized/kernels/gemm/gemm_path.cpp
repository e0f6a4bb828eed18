// Dispatch of the float32 matrix product: which constants and microkernels each path uses
// (kernels-gemm.md, table under "Structure"). A variant is named only under its platform guard,
// so the library builds for x86-64, aarch64 and WebAssembly alike.
#include "optimized/kernels/gemm/gemm_path.hpp"

namespace onemodel::opt::gemm {
namespace {

// Scalar: 4 x 4, tiles 64 x 64; fast mode is plain acc + a*b too (kernels-gemm.md, "Fast mode").
constexpr Path kScalar{Isa::Scalar, 4, 4, 64, 64, f32_gemm_4x4__scalar, f32_gemm_4x4__scalar, pack_a_4};
#if defined(__x86_64__)
// SSE4.1 has no fused multiply-add: both modes multiply then add.
constexpr Path kSse{Isa::Sse, 4, 8, 64, 128, f32_gemm_4x8__sse41, f32_gemm_4x8__sse41, pack_a_4__sse41};
constexpr Path kAvx2{Isa::Avx2, 6, 16, 96, 128, f32_gemm_6x16__avx2_fma, f32_gemm_6x16__avx2_exact,
                      pack_a_6__avx2};
// AVX-512: 12 x 32 (24 of 32 zmm accumulate), tiles 96 x 128, B in strips of NR = 32.
constexpr Path kAvx512{Isa::Avx512,
                        12,
                        32,
                        96,
                        128,
                        f32_gemm_12x32__avx512_fma,
                        f32_gemm_12x32__avx512_exact,
                        pack_a_12__avx2,
                        f32_gemm_row_12x32__avx512_fma,
                        f32_gemm_row_12x32__avx512_exact,
                        f32_gemm_column_12x32__avx512_fma,
                        f32_gemm_column_12x32__avx512_exact,
                        f32_gemm_narrow_12x16__avx512_fma,
                        f32_gemm_narrow_12x16__avx512_exact,
                        f32_gemm_short_12x32__avx512_fma,
                        f32_gemm_short_12x32__avx512_exact,
                        nullptr,  // fast mode: the 12 x 32 kernel already keeps the FMA pipes busy
                        f32_gemm_pair_12x64__avx512_exact};
#endif
#if defined(__aarch64__)
constexpr Path kNeon{Isa::Neon, 8, 12, 96, 120, f32_gemm_8x12__neon_fma, f32_gemm_8x12__neon_exact, pack_a_8};
#endif
#if defined(__wasm_simd128__)
// WebAssembly SIMD128 has no fused multiply-add outside relaxed SIMD: both modes multiply then add.
constexpr Path kWasm{Isa::Wasm, 4, 8, 64, 128, f32_gemm_4x8__wasm_simd128, f32_gemm_4x8__wasm_simd128,
                      pack_a_4};
#endif

// Packed A (gemm_pack.hpp, packed_a_offset) places tile row t at t * mc * k: every full tile
// row must be whole strips of mr rows.
// gemm.cpp packs a ragged in-place B strip into a stack buffer of KC x 32 floats.
constexpr bool tiles_are_whole_strips(const Path& p) { return p.mc % p.mr == 0 && p.nr <= 32; }
static_assert(tiles_are_whole_strips(kScalar));
#if defined(__x86_64__)
static_assert(tiles_are_whole_strips(kSse) && tiles_are_whole_strips(kAvx2) && tiles_are_whole_strips(kAvx512));
#endif
#if defined(__aarch64__)
static_assert(tiles_are_whole_strips(kNeon));
#endif
#if defined(__wasm_simd128__)
static_assert(tiles_are_whole_strips(kWasm));
#endif

}  // namespace

const Path& path_for(Isa isa) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Sse: return kSse;
    case Isa::Avx2: return kAvx2;
    case Isa::Avx512: return kAvx512;
#endif
#if defined(__aarch64__)
    case Isa::Neon: return kNeon;
#endif
#if defined(__wasm_simd128__)
    case Isa::Wasm: return kWasm;
#endif
    default: return kScalar;
  }
}

}  // namespace onemodel::opt::gemm
