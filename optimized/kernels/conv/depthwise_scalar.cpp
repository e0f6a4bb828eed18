// The scalar path of the depthwise plane walk (kernels-depthwise.md): one lane, unfused in both
// modes (this path assumes no fused multiply-add instruction).
#include "optimized/kernels/conv/depthwise_lanes.hpp"
#include "optimized/kernels/conv/scalar_lanes.hpp"

namespace onemodel::opt {

void depthwise_plane_scalar(const DepthwisePlaneJob& job) {
  depthwise_detail::walk_plane<depthwise_detail::ScalarLanes<false>>(job);
}

void depthwise_phase_rows_scalar(const float* src, std::size_t src_step, std::size_t stride, std::size_t count,
                                 std::size_t rows, float* out, std::size_t out_step) {
  depthwise_detail::copy_phase_rows<depthwise_detail::ScalarLanes<false>>(src, src_step, stride, count, rows, out, out_step);
}

}  // namespace onemodel::opt
