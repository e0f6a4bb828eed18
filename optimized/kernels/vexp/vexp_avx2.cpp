// The vectorized exponentials on the avx2 path (exp_lanes.hpp instantiated with lanes_avx2.hpp).
#include "optimized/kernels/vexp/exp_lanes.hpp"
#include "optimized/kernels/vexp/lanes_avx2.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"

namespace onemodel::opt::avx2 {

void exp_non_positive_f32(const float* x, float* y, std::size_t n) noexcept {
  vexp::map_array<Lanes>(x, y, n, [](Lanes::F v) { return vexp::exp_non_positive<Lanes>(v); });
}

void fast_exp_f32(const float* x, float* y, std::size_t n) noexcept {
  vexp::map_array<Lanes>(x, y, n, [](Lanes::F v) { return vexp::fast_exp<Lanes>(v); });
}

}  // namespace onemodel::opt::avx2
