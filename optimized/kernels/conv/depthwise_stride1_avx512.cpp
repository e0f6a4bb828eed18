// The unstrided depthwise plane kernel on AVX-512 (depthwise_stride1.hpp): the loops of
// depthwise_stride1_body.hpp on sixteen lanes (depthwise_direct_lanes_avx512.hpp). Compiled with the
// AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include "optimized/kernels/conv/depthwise_stride1.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx512.hpp"
#include "optimized/kernels/conv/depthwise_stride1_body.hpp"

namespace onemodel::opt {

void depthwise_stride1_plane__avx512(const Conv2dShape& s, const float* in, const float* w, const float* bias,
                                     float* out, bool exact) noexcept {
  depthwise_stride1_body::run<Avx512DirectLanes>(s, in, w, bias, out, exact);
}

}  // namespace onemodel::opt
