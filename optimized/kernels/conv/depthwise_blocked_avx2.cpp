// The channel-blocked depthwise kernel on the AVX2 path (depthwise_blocked.hpp): the loops of
// depthwise_blocked_body.hpp on blocks of eight channels (depthwise_direct_lanes_avx2.hpp).
// Compiled with the AVX2 flags of cmake/kernel_sources.cmake; called only on the AVX2 path.
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/conv/depthwise_blocked_body.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx2.hpp"
#include "optimized/kernels/conv/fused_activation_avx2.hpp"

namespace onemodel::opt {
namespace {

// The activations the AVX2 stores apply (fused_activation_avx2.hpp): the element-wise pass's bits.
struct Avx2FusedActivation {
  static constexpr bool kFuses = true;
  using Args = fused_activation_avx2::Args;
  static Args args_of(const ConvActivation& a) noexcept {
    return Args{a.args.op, _mm256_set1_ps(a.args.alpha), _mm256_set1_ps(a.args.beta), a.args.fast};
  }
  template <ew::UnaryOp kOp>
  static __m256 apply_op(const Args& args, __m256 v) noexcept {
    return fused_activation_avx2::apply_op<kOp>(args, v);
  }
};

}  // namespace

void depthwise_blocked_conv2d_f32__avx2(const KernelContext& context, const Conv2dShape& s, const float* x,
                                        const float* w, const float* bias, float* y,
                                        const ConvActivation* activation) {
  depthwise_blocked_body::run<Avx2DirectLanes, Avx2FusedActivation>(context, s, x, w, bias, y, activation);
}

}  // namespace onemodel::opt
