// The AVX2 path of the element-wise kernels: 8 lanes of the sequences in lane_math.hpp. Only
// unfused IEEE operations (no FMA intrinsic but in the fast-mode sigmoid), ordered comparisons
// (false for NaN, as C's < and >), blends for the selections.
#include <immintrin.h>

#include <cstdint>

#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/elementwise/lane_loops.hpp"
#include "optimized/kernels/elementwise/lanes_avx2.hpp"

namespace onemodel::opt::ew {

void unary_f32__avx2(const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  unary_lanes<Avx2Lanes>(args, x, y, n);
}

void scale_shift_activation_f32__avx2(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                      std::size_t n) {
  scale_shift_activation_lanes<Avx2Lanes>(a, shift, act, x, y, n);
}

void binary_f32__avx2(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                      float* y, std::size_t n) {
  binary_lanes<Avx2Lanes>(op, a, a_step, b, b_step, y, n);
}

}  // namespace onemodel::opt::ew
