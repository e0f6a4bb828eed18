// Driver of the float32 BatchNormalization kernel (optimized/kernels/batchnorm/batch_norm.hpp;
// spec/ops/products-conv.md section 9). Planes are cut into chunks whose size depends on the
// shape only; inside a plane, the path's element-wise kernel (its vector width, the same
// operations on every path), or an inline loop on short planes.
#include "optimized/kernels/batchnorm/batch_norm.hpp"

#include "optimized/frame/canonical_nan.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace onemodel::opt::batchnorm {
namespace {

constexpr std::size_t kChunkWork = 32768;  // elements per chunk, at least one plane
constexpr double kNanosecondsPerElement = 0.3;

}  // namespace

// Planes shorter than this take the inline loop below: the element-wise kernel's dispatch and
// buffered tail cost more than they save there (512 planes of 7 x 7: 7.7 us inline, 10.6 us
// through the kernel; 1024 of 14 x 14: 42.5 -> 35.1 us; 256 of 56 x 56: 129 -> 81 us; AVX-512).
constexpr std::size_t kShortPlane = 64;

// One plane: y = canonical(x * a + shift), then the activation when there is one. x and y may be
// the same array (each element is read before it is written). Long planes run the path's
// element-wise kernel (ew::UnaryOp::ScaleShift, whose a * x is the reference's x * a:
// multiplication commutes bit for bit, and a NaN result is made canonical; with an activation
// ew::scale_shift_activation_f32_run, the same ScaleShift followed by the activation's own
// function); short ones four floats at a time with SSE2 on x86 and one at a time elsewhere, the
// same two rounded operations, so the same bits. On a short plane Relu is applied in that loop;
// any other activation then runs its element-wise kernel on the plane, in place.
void batch_norm_plane_f32(Isa isa, const float* x, float* y, std::size_t size, float a, float shift,
                          const ew::UnaryArgs* activation) noexcept {
  if (size >= kShortPlane) {
    if (activation != nullptr) return ew::scale_shift_activation_f32_run(isa, a, shift, *activation, x, y, size);
    return ew::unary_f32_run(isa, ew::UnaryArgs{ew::UnaryOp::ScaleShift, a, shift}, x, y, size);
  }
  const bool relu = activation != nullptr && activation->op == ew::UnaryOp::Relu;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128 va = _mm_set1_ps(a);
  const __m128 vshift = _mm_set1_ps(shift);
  const __m128 vnan = _mm_castsi128_ps(_mm_set1_epi32(static_cast<int>(kCanonicalNanBits)));
  const __m128 zero = _mm_setzero_ps();
  for (; i + 4 <= size; i += 4) {
    const __m128 xa = _mm_mul_ps(_mm_loadu_ps(x + i), va);
    __m128 v = _mm_add_ps(xa, vshift);
    const __m128 ordered = _mm_cmpord_ps(v, v);  // all ones where v is not NaN
    // Relu (spec/ops/elementwise.md section 3: x > 0 ? x : +0): maxps returns its second operand
    // unless the first is greater, so +0 for -0, +0 and every negative; a NaN v takes the
    // canonical NaN below either way, as the Relu kernel stores it.
    if (relu) v = _mm_max_ps(v, zero);
    _mm_storeu_ps(y + i, _mm_or_ps(_mm_and_ps(ordered, v), _mm_andnot_ps(ordered, vnan)));
  }
#endif
  for (; i < size; ++i) {
    const float xa = x[i] * a;
    const float v = canonical_nan(xa + shift);
    y[i] = relu && v <= 0.0f ? 0.0f : v;  // a NaN is not <= 0 and stays canonical
  }
  if (activation != nullptr && !relu) ew::unary_f32_run(isa, *activation, y, y, size);
}

void batch_norm_f32(const KernelContext& context, const BatchNormArgs& args) {
  const std::size_t planes = args.n * args.c;
  if (planes == 0 || args.plane == 0) return;
  const std::size_t per_chunk = args.plane >= kChunkWork ? 1 : kChunkWork / args.plane;
  const std::size_t chunks = (planes + per_chunk - 1) / per_chunk;
  // Sets how many workers wake, never what is computed: the activation's cost per element added.
  const double per_element =
      kNanosecondsPerElement + (args.activation != nullptr ? ew::unary_ns_per_element(args.activation->op) : 0.0);
  const double estimate = per_element * static_cast<double>(planes) * static_cast<double>(args.plane);
  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    const std::size_t begin = chunk * per_chunk;
    const std::size_t end = begin + per_chunk < planes ? begin + per_chunk : planes;
    for (std::size_t p = begin; p < end; ++p) {
      const std::size_t k = p % args.c;
      // The reference's per-channel arithmetic, operation by operation.
      float a = 0.0f, shift = 0.0f;
      channel_affine(args.scale[k], args.bias[k], args.mean[k], args.var[k], args.epsilon, a, shift);
      batch_norm_plane_f32(context.isa, args.x + p * args.plane, args.y + p * args.plane, args.plane, a, shift,
                           args.activation);
    }
  });
}

}  // namespace onemodel::opt::batchnorm
