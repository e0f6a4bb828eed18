// AveragePool through the depthwise walk (pool_average_depthwise.hpp). The walk reads each window
// from a zero-padded copy of its plane, so border outputs cost what interior ones do; the old row
// loop computed every border output by the literal rule (a 3x3, stride 1, pad 1 pool on 56 x 56
// maps spent most of its time there).
#include "optimized/kernels/pool/pool_average_depthwise.hpp"

#include <algorithm>
#include <array>

#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_plane.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/gemm/gemm_buffer.hpp"

namespace onemodel::opt::pool {
namespace {

// The depthwise shape of the pool: every plane an image of one channel. The end padding follows
// from the output size (conv2d_shape.hpp), so the ceil_mode overhang reads zeros like padding.
Conv2dShape conv_shape(const Pool2dShape& s) noexcept {
  Conv2dShape c;
  c.batch = static_cast<std::size_t>(s.planes);
  c.in_channels = c.out_channels = c.groups = 1;
  c.in_h = static_cast<std::size_t>(s.h.in);
  c.in_w = static_cast<std::size_t>(s.w.in);
  c.kernel_h = static_cast<std::size_t>(s.h.kernel);
  c.kernel_w = static_cast<std::size_t>(s.w.kernel);
  c.stride_h = static_cast<std::size_t>(s.h.stride);
  c.stride_w = static_cast<std::size_t>(s.w.stride);
  c.dilation_h = static_cast<std::size_t>(s.h.dilation);
  c.dilation_w = static_cast<std::size_t>(s.w.dilation);
  c.pad_top = static_cast<std::size_t>(s.h.pad_before);
  c.pad_left = static_cast<std::size_t>(s.w.pad_before);
  c.out_h = static_cast<std::size_t>(s.h.out);
  c.out_w = static_cast<std::size_t>(s.w.out);
  return c;
}

// Section 8.3's factor of one axis for output o: the taps inside the input or, with
// count_include_pad, inside the input or its declared padding (never the ceil_mode overhang).
std::int64_t axis_divisor(const PoolAxis& a, std::int64_t o, bool include_pad) noexcept {
  const std::int64_t low = include_pad ? -a.pad_before : 0;
  const std::int64_t past = include_pad ? a.in + a.pad_after : a.in;
  std::int64_t count = 0;
  for (std::int64_t k = 0; k < a.kernel; ++k) {
    const std::int64_t p = o * a.stride - a.pad_before + k * a.dilation;
    if (p >= low && p < past) ++count;
  }
  return count;
}

}  // namespace

bool average_takes_depthwise(const Pool2dShape& s) noexcept {
  if (s.planes <= 0 || s.h.out <= 0 || s.w.out <= 0 || s.h.kernel <= 0 || s.w.kernel <= 0) return false;
  if (s.h.stride <= 0 || s.w.stride <= 0 || s.h.dilation <= 0 || s.w.dilation <= 0) return false;
  if (s.h.pad_before < 0 || s.w.pad_before < 0 || s.h.pad_after < 0 || s.w.pad_after < 0) return false;
  return !depthwise_uses_fallback(conv_shape(s));
}

void average_planes_depthwise(const KernelContext& context, const Pool2dShape& s, const float* x, float* y) {
  const Conv2dShape c = conv_shape(s);
  // One weight of 1 per tap, shared by every plane (one channel).
  std::array<float, kDepthwiseMaxTaps> ones{};
  std::fill(ones.begin(), ones.begin() + static_cast<std::ptrdiff_t>(c.taps()), 1.0f);
  // Exact mode's unfused steps: 1 * x rounds to x and the sum is rounded once per tap, which is
  // also what the fused step gives here; asking for them keeps the argument to one line.
  KernelContext walk_context = context;
  walk_context.exact = true;
  depthwise_walk_conv2d_f32(walk_context, c, x, ones.data(), nullptr, y);

  // The divisor of every output position, the same for every plane: float(dh * dw) with dh, dw
  // the axes' factors (at most 64 taps, so the product and its float are exact). Kept by the
  // calling thread, which waits for the chunks; grown once, so warm calls allocate nothing.
  const std::int64_t out_w = s.w.out, out_plane = s.h.out * s.w.out;
  thread_local gemm::GrowingBuffer divisor_buffer;
  float* divisors = divisor_buffer.reserve(static_cast<std::size_t>(out_plane + out_w));
  float* column_factors = divisors + out_plane;
  for (std::int64_t ox = 0; ox < out_w; ++ox) {
    column_factors[ox] = static_cast<float>(axis_divisor(s.w, ox, s.count_include_pad));
  }
  for (std::int64_t oy = 0; oy < s.h.out; ++oy) {
    const auto dh = static_cast<float>(axis_divisor(s.h, oy, s.count_include_pad));
    for (std::int64_t ox = 0; ox < out_w; ++ox) divisors[oy * out_w + ox] = dh * column_factors[ox];
  }
  const auto per_chunk = static_cast<std::int64_t>(depthwise_planes_per_chunk(c));
  const std::int64_t chunks = (s.planes + per_chunk - 1) / per_chunk;
  context.parallel_for(static_cast<std::size_t>(chunks), 0.1 * static_cast<double>(s.planes * out_plane),
                       [&](std::size_t chunk) {
    const std::int64_t begin = static_cast<std::int64_t>(chunk) * per_chunk;
    const std::int64_t end = std::min(s.planes, begin + per_chunk);
    for (std::int64_t p = begin; p < end; ++p) {
      // One IEEE division per output and the canonical NaN (the Div kernel's rule, section 3 of
      // spec/ops/elementwise.md, and section 8.3's quotient).
      float* plane = y + p * out_plane;
      ew::binary_f32_run(context.isa, ew::BinaryOp::Div, plane, 1, divisors, 1, plane,
                         static_cast<std::size_t>(out_plane));
    }
  });
}

}  // namespace onemodel::opt::pool
