// The channel-blocked depthwise kernel on the AVX2 path (depthwise_blocked.hpp): the loops of
// depthwise_blocked_body.hpp on blocks of eight channels (depthwise_direct_lanes_avx2.hpp).
// Compiled with the AVX2 flags of cmake/kernel_sources.cmake; called only on the AVX2 path.
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/conv/depthwise_blocked_body.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx2.hpp"

namespace onemodel::opt {

void depthwise_blocked_conv2d_f32__avx2(const KernelContext& context, const Conv2dShape& s, const float* x,
                                        const float* w, const float* bias, float* y,
                                        const ConvActivation* activation) {
  depthwise_blocked_body::run<Avx2DirectLanes>(context, s, x, w, bias, y, activation);
}

}  // namespace onemodel::opt
