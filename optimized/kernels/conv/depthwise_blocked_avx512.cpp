// The channel-blocked depthwise kernel on the AVX-512 path (depthwise_blocked.hpp): the loops of
// depthwise_blocked_body.hpp on blocks of sixteen channels (depthwise_direct_lanes_avx512.hpp).
// Compiled with the AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/conv/depthwise_blocked_body.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx512.hpp"

namespace onemodel::opt {

void depthwise_blocked_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                          const float* w, const float* bias, float* y,
                                          const ConvActivation* activation) {
  // The activation stays a separate pass here: the fused stores (fused_activation_avx512.hpp) are
  // not yet measured or tested on an AVX-512 machine with this kernel.
  using NoFused = depthwise_blocked_body::NoFusedActivation<Avx512DirectLanes>;
  depthwise_blocked_body::run<Avx512DirectLanes, NoFused>(context, s, x, w, bias, y, activation);
}

}  // namespace onemodel::opt
