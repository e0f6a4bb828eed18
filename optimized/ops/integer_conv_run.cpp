#include "optimized/ops/integer_conv_run.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/integer_chunks.hpp"
#include "optimized/ops/integer_depthwise.hpp"

namespace onemodel::opt {
namespace {

const std::uint8_t* conv_bytes_of(const Tensor& t) {
  return t.element_count() == 0 ? nullptr : reinterpret_cast<const std::uint8_t*>(tensor_bytes(t).data());
}

// A byte of an 8-bit operand in the kernel's shifted domain (int8_gemm.hpp: int8 as it is, uint8
// minus 128).
inline std::int32_t conv_shifted(std::uint8_t byte, bool is_signed) {
  return is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : static_cast<std::int32_t>(byte) - 128;
}

std::vector<ConvTapOffset> conv_tap_offsets(const quant::IntegerConvGeometry& g, std::int64_t c_per_group) {
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  const std::int64_t plane_in = ad.in * ah.in * aw.in;
  std::vector<ConvTapOffset> taps;
  taps.reserve(static_cast<std::size_t>(c_per_group * ad.kernel * ah.kernel * aw.kernel));
  for (std::int64_t c = 0; c < c_per_group; ++c) {
    for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
      for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
        for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
          const std::int64_t d = kd * ad.dilation, y = ky * ah.dilation, x = kx * aw.dilation;
          taps.push_back({c * plane_in, d, y, x, c * plane_in + (d * ah.in + y) * aw.in + x});
        }
      }
    }
  }
  return taps;
}

// True when B is the input plane itself (a 1x1 window, stride 1, no padding on any axis): the
// packing then reads the plane's rows as they are.
bool conv_is_pointwise(const quant::IntegerConvGeometry& g) {
  for (const conv_geometry::Axis& a : g.axes) {
    if (a.kernel != 1 || a.stride != 1 || a.pad_before != 0 || a.pad_after != 0 || a.out != a.in) return false;
  }
  return true;
}

// B [k x cols] of the output positions col0.. packed straight from the input (int8.md
// "Convolution": im2col fused into the packing). B'[kk, col] is the window of position col0 + col
// at tap kk; the position's first tap, and whether its whole window lies inside the input (then
// no tap needs a bounds test), are worked out once per column.
template <bool Signed>
void pack_windows(int8::PackedB& packed, const quant::IntegerConvGeometry& g, const std::vector<ConvTapOffset>& offsets,
                  const std::vector<std::int64_t>& linear_offsets, const std::uint8_t* planes, std::int64_t col0,
                  std::int64_t k, std::size_t cols, std::int32_t pad, Isa isa) {
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  // Everything the element function reads is a value of its own (no reference to the caller's
  // frame), so that once inlined into pack_b_with it stays in registers.
  const std::int64_t span_d = (ad.kernel - 1) * ad.dilation, span_y = (ah.kernel - 1) * ah.dilation,
                     span_x = (aw.kernel - 1) * aw.dilation;
  const std::int64_t in_d = ad.in, in_h = ah.in, in_w = aw.in, out_h = ah.out, out_w = aw.out;
  const std::int64_t stride_d = ad.stride, stride_y = ah.stride, stride_x = aw.stride;
  const std::int64_t pad_d = ad.pad_before, pad_y = ah.pad_before, pad_x = aw.pad_before;
  const ConvTapOffset* taps = offsets.data();
  const std::int64_t* linear = linear_offsets.data();  // compact: the interior path's only table
  auto value = [=, cached = static_cast<std::size_t>(-1), base_d = std::int64_t{0}, base_y = std::int64_t{0},
                base_x = std::int64_t{0}, base = std::int64_t{0},
                interior = false](std::size_t kk, std::size_t col) mutable -> std::int32_t {
    if (col != cached) {
      const std::int64_t p = col0 + static_cast<std::int64_t>(col);
      const std::int64_t ox = p % out_w, oy = p / out_w % out_h, od = p / out_w / out_h;
      base_d = od * stride_d - pad_d;
      base_y = oy * stride_y - pad_y;
      base_x = ox * stride_x - pad_x;
      interior = base_d >= 0 && base_d + span_d < in_d && base_y >= 0 && base_y + span_y < in_h && base_x >= 0 &&
                 base_x + span_x < in_w;
      base = (base_d * in_h + base_y) * in_w + base_x;
      cached = col;
    }
    if (interior) return conv_shifted(planes[base + linear[kk]], Signed);
    const ConvTapOffset& t = taps[kk];
    const std::int64_t id = base_d + t.d, iy = base_y + t.y, ix = base_x + t.x;
    if (id < 0 || id >= in_d || iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) return pad;
    return conv_shifted(planes[t.plane + (id * in_h + iy) * in_w + ix], Signed);
  };
  int8::pack_b_with_into(packed, static_cast<std::size_t>(k), cols, Signed, isa, value);
}

// The packed windows of one call (graph-runtime.md section 4: a warm run allocates nothing): the
// panels of a PackedB only grow, so once a thread has packed the largest B of a model its packing
// reuses the same storage. `chunk_pack` serves one chunk of the one-phase form (packed, used and
// dropped by one thread); `call_packs` the two-phase form, owned by the calling thread and filled
// by whichever threads run the packing chunks (each its own element). No conv runs inside a chunk,
// so neither is in use twice at once on one thread.
int8::PackedB& chunk_pack() {
  thread_local int8::PackedB packed;
  return packed;
}
std::vector<int8::PackedB>& call_packs(std::size_t count) {
  thread_local std::vector<int8::PackedB> packs;
  if (packs.size() < count) packs.resize(count);
  return packs;
}

}  // namespace

IntegerConvWeights prepare_integer_conv_weights(const quant::IntegerConvGeometry& g, const Tensor& w,
                                                const std::vector<std::int32_t>& zw) {
  IntegerConvWeights out;
  out.w = w.contiguous();
  out.is_signed = w.dtype() == DType::I8;
  const std::int64_t m_per_group = g.m / g.group;
  for (std::int64_t grp = 0; grp < g.group; ++grp) {
    if (zw.size() == 1) {
      out.za.push_back(zw);
    } else {
      out.za.emplace_back(zw.begin() + grp * m_per_group, zw.begin() + (grp + 1) * m_per_group);
    }
  }
  out.depthwise = integer_conv_is_depthwise(g) && integer_depthwise_fits(g);
  if (!out.depthwise) {
    out.offsets = conv_tap_offsets(g, g.c / g.group);
    out.linear.reserve(out.offsets.size());
    for (const ConvTapOffset& t : out.offsets) out.linear.push_back(t.linear);
    out.pointwise = conv_is_pointwise(g);
  }
  if (out.depthwise) {
    // (w - zw) per output channel and tap: the direct kernel's weights (|v| <= 255).
    const std::int64_t taps = g.axes[0].kernel * g.axes[1].kernel * g.axes[2].kernel;
    const std::uint8_t* wb = conv_bytes_of(out.w);
    out.taps.resize(static_cast<std::size_t>(g.m * taps));
    for (std::int64_t oc = 0; oc < g.m; ++oc) {
      const std::int32_t z = zw[zw.size() == 1 ? 0 : static_cast<std::size_t>(oc)];
      for (std::int64_t t = 0; t < taps; ++t) {
        const std::uint8_t byte = wb[oc * taps + t];
        const std::int32_t v = out.is_signed ? static_cast<std::int32_t>(static_cast<std::int8_t>(byte)) : byte;
        out.taps[static_cast<std::size_t>(oc * taps + t)] = v - z;
      }
    }
  }
  return out;
}

void run_integer_conv(const quant::IntegerConvGeometry& g, const Tensor& x_in, std::int32_t zx,
                      const IntegerConvWeights& weights, std::int32_t* y, const OptimizedConfig& config,
                      const IntegerConvEpilogue* epilogue) {
  const Tensor x = x_in.contiguous();
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  const std::int64_t c_per_group = g.c / g.group, m_per_group = g.m / g.group;
  const std::int64_t taps = ad.kernel * ah.kernel * aw.kernel;
  const std::int64_t k = c_per_group * taps;
  const std::int64_t plane_out = ad.out * ah.out * aw.out;
  const std::int64_t plane_in = ad.in * ah.in * aw.in;
  if (g.n == 0 || g.m == 0 || plane_out == 0) return;
  const std::uint8_t* xb = conv_bytes_of(x);
  const bool x_signed = x.dtype() == DType::I8;
  if (weights.depthwise) {
    integer_depthwise(g, xb, x_signed, zx, weights.taps.data(), y, config.pool, config.isa, epilogue);
    return;
  }
  const std::uint8_t* wb = conv_bytes_of(weights.w);
  // A padding tap holds the input's zero point, so it contributes (zx - zx) = 0 (section 7).
  const std::int32_t pad = conv_shifted(static_cast<std::uint8_t>(zx), x_signed);
  const std::vector<ConvTapOffset>& offsets = weights.offsets;
  const std::vector<std::int64_t>& linear = weights.linear;
  const bool pointwise = weights.pointwise;
  const std::int32_t zb_value = zx;
  const std::span<const std::int32_t> zb(&zb_value, 1);
  const std::int64_t blocks = (plane_out + kColumnBlock - 1) / kColumnBlock;
  // Chunks fixed by the shape (never by the thread count; the sums are exact either way). With at
  // least kPackChunksForOnePhase (image, group, column block) triples, one phase: each packs its
  // windows and runs its products on them. With fewer (a late layer at batch 1: 7 x 7 or 14 x 14
  // outputs are one column block), two phases: every triple packs its windows, then every
  // (triple, block of kRowBlock output channels) runs its product and epilogue, so the threads
  // share the hundreds of channels and the windows are still packed once.
  const std::int64_t row_blocks = (m_per_group + kRowBlock - 1) / kRowBlock;
  const auto packs = static_cast<std::size_t>(g.n * g.group * blocks);
  const bool one_phase = packs >= kPackChunksForOnePhase;
  std::vector<int8::PackedB>* two_phase = one_phase ? nullptr : &call_packs(packs);
  // The pack of chunk `index`: the thread's own in the one-phase form (the chunk packs and uses
  // it), the call's element `index` in the two-phase form.
  const auto packed_of = [&](std::size_t index) -> int8::PackedB& {
    return one_phase ? chunk_pack() : (*two_phase)[index];
  };
  const auto pack = [&](std::size_t index) {
    const std::int64_t cb = static_cast<std::int64_t>(index) % blocks;
    const std::int64_t grp = static_cast<std::int64_t>(index) / blocks % g.group;
    const std::int64_t n = static_cast<std::int64_t>(index) / blocks / g.group;
    const std::int64_t col0 = cb * kColumnBlock;
    const auto cols = static_cast<std::size_t>(std::min(kColumnBlock, plane_out - col0));
    const std::uint8_t* planes = xb + (n * g.c + grp * c_per_group) * plane_in;
    int8::PackedB& into = packed_of(index);
    if (pointwise) {
      const int8::Operand b{planes + col0, x_signed, static_cast<std::size_t>(plane_in)};
      int8::pack_b_into(into, b, static_cast<std::size_t>(k), cols, config.isa);
    } else if (x_signed) {
      pack_windows<true>(into, g, offsets, linear, planes, col0, k, cols, pad, config.isa);
    } else {
      pack_windows<false>(into, g, offsets, linear, planes, col0, k, cols, pad, config.isa);
    }
  };
  const auto product = [&](std::size_t index) {
    const std::size_t p = index / static_cast<std::size_t>(row_blocks);
    const std::int64_t r0 = static_cast<std::int64_t>(index % static_cast<std::size_t>(row_blocks)) * kRowBlock;
    const std::int64_t rows = std::min(kRowBlock, m_per_group - r0);
    const std::int64_t cb = static_cast<std::int64_t>(p) % blocks;
    const std::int64_t grp = static_cast<std::int64_t>(p) / blocks % g.group;
    const std::int64_t n = static_cast<std::int64_t>(p) / blocks / g.group;
    const std::int64_t col0 = cb * kColumnBlock;
    const std::int64_t cols = std::min(kColumnBlock, plane_out - col0);
    const std::vector<std::int32_t>& za_group = weights.za[static_cast<std::size_t>(grp)];
    const std::span<const std::int32_t> za =
        za_group.size() == 1 ? std::span<const std::int32_t>(za_group)
                             : std::span<const std::int32_t>(za_group).subspan(static_cast<std::size_t>(r0),
                                                                                static_cast<std::size_t>(rows));
    const int8::Operand a{wb + (grp * m_per_group + r0) * k, weights.is_signed, static_cast<std::size_t>(k)};
    int8::gemm(static_cast<std::size_t>(rows), a, za, packed_of(p), zb,
               y + (n * g.m + grp * m_per_group + r0) * plane_out + col0, static_cast<std::size_t>(plane_out), nullptr,
               config.isa);
    if (epilogue != nullptr) (*epilogue)(n, grp * m_per_group + r0, rows, col0, cols);
  };
  // The pool's estimates (they decide only how many helpers wake): about 0.05 ns per multiply-add
  // and 0.5 ns per packed byte.
  const double estimate = 0.05 * static_cast<double>(g.n * g.m * plane_out * k);
  if (one_phase) {
    // Enough column blocks to share: each chunk packs its windows, runs every row block on them
    // while they are in cache, and lets them go.
    run_integer_chunks(config.pool, packs, estimate, [&](std::size_t index) {
      pack(index);
      for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
        product(index * static_cast<std::size_t>(row_blocks) + static_cast<std::size_t>(rb));
      }
    });
    return;
  }
  run_integer_chunks(config.pool, packs, 0.5 * static_cast<double>(g.n * g.group * k * plane_out), pack);
  run_integer_chunks(config.pool, packs * static_cast<std::size_t>(row_blocks), estimate, product);
}

}  // namespace onemodel::opt
