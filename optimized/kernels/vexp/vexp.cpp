// Dispatch of the vectorized exponentials to the path's variant (vexp_variants.hpp).
#include "optimized/kernels/vexp/vexp.hpp"

#include "optimized/kernels/vexp/vexp_variants.hpp"

namespace onemodel::opt {

void exp_non_positive_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512: return avx512::exp_non_positive_f32(x, y, n);
    case Isa::Avx2: return avx2::exp_non_positive_f32(x, y, n);
    case Isa::Sse: return sse::exp_non_positive_f32(x, y, n);
#endif
#if defined(__aarch64__)
    case Isa::Neon: return neon::exp_non_positive_f32(x, y, n);
#endif
#if defined(__wasm_simd128__)
    case Isa::Wasm: return wasm::exp_non_positive_f32(x, y, n);
#endif
    default: return scalar::exp_non_positive_f32(x, y, n);
  }
}

void fast_exp_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512: return avx512::fast_exp_f32(x, y, n);
    case Isa::Avx2: return avx2::fast_exp_f32(x, y, n);
    case Isa::Sse: return sse::fast_exp_f32(x, y, n);
#endif
#if defined(__aarch64__)
    case Isa::Neon: return neon::fast_exp_f32(x, y, n);
#endif
#if defined(__wasm_simd128__)
    case Isa::Wasm: return wasm::fast_exp_f32(x, y, n);
#endif
    default: return scalar::fast_exp_f32(x, y, n);
  }
}

}  // namespace onemodel::opt
