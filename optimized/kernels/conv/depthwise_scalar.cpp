// The scalar path of the depthwise plane walk (kernels-depthwise.md): one lane, unfused in both
// modes (this path assumes no fused multiply-add instruction).
#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {

void depthwise_plane_scalar(const DepthwisePlaneJob& job) {
  depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<false>>(job);
}

}  // namespace onemodel::opt
