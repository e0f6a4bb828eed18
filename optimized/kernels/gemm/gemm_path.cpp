// The registry of the float32 matrix product: which constants and microkernels each path uses
// (kernels-gemm.md, table under "Structure"), listed best first, and the dispatch that reads the
// list (kernel_registry.hpp). A variant is named only under its platform guard, so the library
// builds for x86-64, aarch64 and WebAssembly alike.
#include "optimized/kernels/gemm/gemm_path.hpp"

#include "optimized/frame/cpu_traits.hpp"
#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt::gemm {
namespace {

// Scalar: 4 x 4, tiles 64 x 64; fast mode is plain acc + a*b too (kernels-gemm.md, "Fast mode").
constexpr Path kScalar{"f32_gemm_4x4__scalar", Isa::Scalar, 4, 4, 64, 64, 256, f32_gemm_4x4__scalar, f32_gemm_4x4__scalar,
                       pack_a_4};
#if defined(__x86_64__)
// SSE4.1 has no fused multiply-add: both modes multiply then add.
constexpr Path kSse{"f32_gemm_4x8__sse41", Isa::Sse, 4, 8, 64, 128, 256, f32_gemm_4x8__sse41, f32_gemm_4x8__sse41,
                    pack_a_4__sse41};
// AVX2: the store kernel (fast mode's epilogue in the stores of full 6 x 16 blocks) and the row,
// column, narrow and short edge kernels (gemm_edge_avx2.cpp); no narrow tail or half-narrow kernel
// (a ragged strip is at most 15 columns: the narrow kernel's 8, then 1 to 7 more).
constexpr Path avx2_path() {
  Path p{"f32_gemm_6x16__avx2", Isa::Avx2, 6, 16, 96, 128, 256, f32_gemm_6x16__avx2_fma, f32_gemm_6x16__avx2_exact,
         pack_a_6__avx2};
  p.store_fast = f32_gemm_6x16__avx2_fma_store;
  p.row_fast = f32_gemm_row_6x16__avx2_fma;
  p.row_exact = f32_gemm_row_6x16__avx2_exact;
  p.column_fast = f32_gemm_column_6x16__avx2_fma;
  p.column_exact = f32_gemm_column_6x16__avx2_exact;
  p.narrow_fast = f32_gemm_narrow_6x8__avx2_fma;
  p.narrow_exact = f32_gemm_narrow_6x8__avx2_exact;
  p.short_fast = f32_gemm_short_6x16__avx2_fma;
  p.short_exact = f32_gemm_short_6x16__avx2_exact;
  return p;
}
constexpr Path kAvx2 = avx2_path();
// AVX-512: 12 x 32 (24 of 32 zmm accumulate), tiles 96 x 128, B in strips of NR = 32.
constexpr Path kAvx512{"f32_gemm_12x32__avx512",
                        Isa::Avx512,
                        12,
                        32,
                        96,
                        128,
                        512,  // docs/design.md, "k-blocks of 512 on AVX-512"
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
                        f32_gemm_pair_12x64__avx512_exact,
                        f32_gemm_12x32__avx512_fma_store,
                        f32_gemm_12x32__avx512_fma_streamed,
                        f32_gemm_12x32__avx512_fma_store_streamed,
                        f32_gemm_narrow_tail_12x20__avx512_fma,
                        f32_gemm_narrow_tail_12x20__avx512_exact,
                        f32_gemm_half_narrow_12x12__avx512_fma,
                        f32_gemm_half_narrow_12x12__avx512_exact};
// The same variant with exact mode's full-block, short and narrow kernels in 256-bit halves
// (gemm_micro_halves_avx512.cpp): where a 512-bit instruction runs as two halves (AMD Zen 4), the
// 512-bit kernels lose a third of their time to the A broadcasts; the halves kernels' broadcasts
// are loads. No pair kernel: two strips at a time only saved broadcasts. Same packing, same fast
// kernels, the same bits in both modes; path_for serves it in kAvx512's place when
// avx512_exact_halves() says so (cpu_traits.hpp). Not in the list: one path, two tunings of its
// exact kernels, which the kernel tests run once each (ONEMODEL_AVX512_HALVES=0 and 1).
constexpr Path avx512_halves(Path p) {
  p.name = "f32_gemm_12x32__avx512_halves";
  p.exact = f32_gemm_12x32__avx512_halves_exact;
  p.narrow_exact = f32_gemm_narrow_12x16__avx512_halves_exact;
  p.short_exact = f32_gemm_short_12x32__avx512_halves_exact;
  p.pair_exact = nullptr;
  return p;
}
constexpr Path kAvx512Halves = avx512_halves(kAvx512);
#endif
#if defined(__aarch64__)
constexpr Path kNeon{"f32_gemm_8x12__neon", Isa::Neon, 8, 12, 96, 120, 256, f32_gemm_8x12__neon_fma,
                     f32_gemm_8x12__neon_exact, pack_a_8};
#endif
#if defined(__wasm_simd128__)
// WebAssembly SIMD128 has no fused multiply-add outside relaxed SIMD: both modes multiply then add.
constexpr Path kWasm{"f32_gemm_4x8__wasm_simd128", Isa::Wasm, 4, 8, 64, 128, 256, f32_gemm_4x8__wasm_simd128,
                     f32_gemm_4x8__wasm_simd128, pack_a_4};
#endif

// The list: best first, scalar last (docs/design.md, "Kernel registry").
constexpr Path kVariants[] = {
#if defined(__x86_64__)
    kAvx512, kAvx2, kSse,
#endif
#if defined(__aarch64__)
    kNeon,
#endif
#if defined(__wasm_simd128__)
    kWasm,
#endif
    kScalar};

// Bands of rows start on a strip of mr rows (packed_a_offset) and divide MC (tile_shape), so every
// full tile row is whole strips.
// gemm.cpp packs a ragged in-place B strip into a stack buffer of KC x 32 floats.
constexpr bool tiles_are_whole_strips(const Path& p) { return p.mc % p.mr == 0 && p.nr <= 32 && p.kc <= kMaxKc; }
constexpr bool every_variant_has_whole_strips() {
  for (const Path& p : kVariants) {
    if (!tiles_are_whole_strips(p)) return false;
  }
  return true;
}
static_assert(every_variant_has_whole_strips());

}  // namespace

std::span<const Path> variants() noexcept { return kVariants; }

const Path& path_for(Isa isa) noexcept {
  static const VariantChoice<Path> choice{std::span<const Path>(kVariants)};
  const Path& chosen = choice[isa];
#if defined(__x86_64__)
  if (chosen.isa == Isa::Avx512 && avx512_exact_halves()) return kAvx512Halves;  // read once (cpu_traits.cpp)
#endif
  return chosen;
}

}  // namespace onemodel::opt::gemm
