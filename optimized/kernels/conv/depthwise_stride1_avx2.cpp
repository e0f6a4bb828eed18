// The unstrided depthwise plane kernel on AVX2 (depthwise_stride1.hpp): the loops of
// depthwise_stride1_body.hpp on eight lanes (depthwise_direct_lanes_avx2.hpp). Compiled with the
// AVX2 flags of cmake/kernel_sources.cmake; called only on the AVX2 path.
#include "optimized/kernels/conv/depthwise_stride1.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx2.hpp"
#include "optimized/kernels/conv/depthwise_stride1_body.hpp"

namespace onemodel::opt {

void depthwise_stride1_plane__avx2(const Conv2dShape& s, const float* in, const float* w, const float* bias,
                                   float* out, bool exact) noexcept {
  depthwise_stride1_body::run<Avx2DirectLanes>(s, in, w, bias, out, exact);
}

}  // namespace onemodel::opt
