// The WebAssembly SIMD128 4 x 8 microkernel (kernels-gemm.md, table under "Structure": the 4-lane
// path, 8 accumulators), the same operation sequence as the SSE4.1 kernel: each step of k splats
// the 4 values of one packed A column, loads the 8-wide packed B row as 2 vectors and updates the
// accumulators with a rounded multiply and then a rounded add (exact-mode.md rule 1). SIMD128 has
// no fused multiply-add, so fast mode runs this kernel too. Compiled with -msimd128.
#include <wasm_simd128.h>

#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

inline v128_t step(v128_t acc, v128_t a, v128_t b) noexcept {
  const v128_t prod = wasm_f32x4_mul(a, b);
  return wasm_f32x4_add(acc, prod);
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline v128_t canonical_nan(v128_t v) noexcept {
  const v128_t nan = wasm_i32x4_splat(0x7FC00000);
  return wasm_v128_bitselect(nan, v, wasm_f32x4_ne(v, v));
}

inline void store_row(float* c, v128_t v0, v128_t v1, bool canonical) noexcept {
  if (canonical) {
    v0 = canonical_nan(v0);
    v1 = canonical_nan(v1);
  }
  wasm_v128_store(c, v0);
  wasm_v128_store(c + 4, v1);
}

}  // namespace

void f32_gemm_4x8__wasm_simd128(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                std::uint32_t flags) {
  v128_t c00, c01, c10, c11, c20, c21, c30, c31;
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
    c00 = wasm_v128_load(c + 0 * ldc);
    c01 = wasm_v128_load(c + 0 * ldc + 4);
    c10 = wasm_v128_load(c + 1 * ldc);
    c11 = wasm_v128_load(c + 1 * ldc + 4);
    c20 = wasm_v128_load(c + 2 * ldc);
    c21 = wasm_v128_load(c + 2 * ldc + 4);
    c30 = wasm_v128_load(c + 3 * ldc);
    c31 = wasm_v128_load(c + 3 * ldc + 4);
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = wasm_f32x4_splat(0.0f);
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const v128_t b0 = wasm_v128_load(b);
    const v128_t b1 = wasm_v128_load(b + 4);
    v128_t av = wasm_v128_load32_splat(a + 0);
    c00 = step(c00, av, b0);
    c01 = step(c01, av, b1);
    av = wasm_v128_load32_splat(a + 1);
    c10 = step(c10, av, b0);
    c11 = step(c11, av, b1);
    av = wasm_v128_load32_splat(a + 2);
    c20 = step(c20, av, b0);
    c21 = step(c21, av, b1);
    av = wasm_v128_load32_splat(a + 3);
    c30 = step(c30, av, b0);
    c31 = step(c31, av, b1);
    a += 4;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  store_row(c + 0 * ldc, c00, c01, canonical);
  store_row(c + 1 * ldc, c10, c11, canonical);
  store_row(c + 2 * ldc, c20, c21, canonical);
  store_row(c + 3 * ldc, c30, c31, canonical);
}

}  // namespace onemodel::opt::gemm
