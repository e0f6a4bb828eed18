// The vectorized exponentials on the sse path (exp_lanes.hpp instantiated with lanes_sse.hpp).
#include "optimized/kernels/vexp/exp_lanes.hpp"
#include "optimized/kernels/vexp/lanes_sse.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"

namespace onemodel::opt::sse {

void exp_non_positive_f32(const float* x, float* y, std::size_t n) noexcept {
  vexp::map_array<Lanes>(x, y, n, [](Lanes::F v) { return vexp::exp_non_positive<Lanes>(v); });
}

void fast_exp_f32(const float* x, float* y, std::size_t n) noexcept {
  vexp::map_array<Lanes>(x, y, n, [](Lanes::F v) { return vexp::fast_exp<Lanes>(v); });
}

}  // namespace onemodel::opt::sse
