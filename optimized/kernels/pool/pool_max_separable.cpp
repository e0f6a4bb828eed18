// MaxPool in two passes (spec/ops/products-conv.md section 8.2): first each input row's maximum
// over every output column's kw taps, then for each output row the maximum of those row maxima
// over its window rows, ky in order.
//
// Why the bits are the one-pass fold's: folding from -inf with "strictly greater replaces" returns
// the first tap, in the order folded, that equals the window's maximum (NaN taps never replace).
// A row's fold gives that row's first such tap, the fold over rows picks the first row holding one,
// so the result is the first such tap in (h, w) order, as in the one-pass fold (+0 and -0 are equal
// taps and the earlier one stays; the kernel test's data is full of both). Taps outside the input
// read -inf, which never replaces anything. An output still -inf at the end (every inside tap NaN
// or -inf, or none inside) is recomputed by the literal rule, as the one-pass loop does.
//
// Why two passes over a laid-out copy: a row's maxima serve up to kh output rows (a 3 x 3 window at
// stride 1 takes 6 steps per output, not 9), and both passes become one call of the vector row loop
// over all the chunk's planes. The copy puts each input row between -inf columns, P = Q * sw floats
// long, so output column ox of laid-out row r is flat index r * Q + ox; and each plane between -inf
// rows, R rows per plane, so that at height stride 1 output row oy's window rows are laid-out rows
// oy + ky * dh of its plane, a fixed offset from the output's own index. The columns from w.out to
// Q and the rows from h.out to R are computed and never read. Small maps (7 x 7, 14 x 14: GoogLeNet's
// inception pools) were mostly per-row call overhead and scalar tails before; at height strides
// above 1 the second pass runs per output row.
#include "optimized/kernels/pool/pool_max_separable.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace onemodel::opt::pool {
namespace {

// Output columns per laid-out row (Q): the row's taps reach (w.out - 1) * sw + (kw - 1) * dw, so a
// row of Q * sw >= that + 1 floats holds every tap of its own outputs.
std::int64_t row_outputs(const PoolAxis& w) noexcept {
  const std::int64_t needed = (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1;
  return (needed + w.stride - 1) / w.stride;
}

// Floats read past the last laid-out row by the last junk output: its taps, plus the element after
// the last one that the stride-2 vector load reads (pool_row.hpp).
std::int64_t tail_slack(const PoolAxis& w) noexcept { return (w.kernel - 1) * w.dilation + 2; }

struct Layout {
  std::int64_t q, p, r;     // output columns per laid-out row, floats per row, rows per plane
  std::int64_t extra_rows;  // -inf rows after the last plane, read by its last junk outputs
  std::int64_t rows(std::int64_t planes) const noexcept { return planes * r + extra_rows; }
};

Layout layout(const Pool2dShape& s) noexcept {
  Layout l;
  l.q = row_outputs(s.w);
  l.p = l.q * s.w.stride;
  // Laid-out row ph + h holds input row h; output row oy reads rows oy * sh + ky * dh.
  l.r = std::max(s.h.pad_before + s.h.in, (s.h.out - 1) * s.h.stride + (s.h.kernel - 1) * s.h.dilation + 1);
  l.extra_rows = (s.h.kernel - 1) * s.h.dilation + 1;
  return l;
}

// The floats of each part for `planes` planes: padded input (plus the first pass's over-read),
// row maxima, and the second pass's output.
struct Parts {
  std::int64_t padded, row_max, out;
};

Parts parts(const Pool2dShape& s, const Layout& l, std::int64_t planes) noexcept {
  const std::int64_t cells = l.rows(planes) * l.q;
  return {l.rows(planes) * l.p + tail_slack(s.w), cells, cells};
}

thread_local std::vector<float> storage;  // only grows: warm runs allocate nothing

bool is_minus_inf(float v) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u == 0xFF800000u;
}

bool shape_in_range(const Pool2dShape& s) noexcept {
  const PoolAxis& h = s.h;
  const PoolAxis& w = s.w;
  if (h.kernel <= 0 || w.kernel <= 0 || h.stride <= 0 || w.stride <= 0 || h.dilation <= 0 || w.dilation <= 0) {
    return false;
  }
  if (h.in <= 0 || w.in <= 0 || h.out <= 0 || w.out <= 0 || h.pad_before < 0 || w.pad_before < 0) return false;
  // Far beyond any pooling seen, and small enough that no product below can overflow.
  constexpr std::int64_t kLimit = std::int64_t{1} << 20;
  return h.in < kLimit && w.in < kLimit && h.out < kLimit && w.out < kLimit && h.stride < kLimit && w.stride < kLimit &&
         h.kernel * h.dilation < kLimit && w.kernel * w.dilation < kLimit && h.pad_before < kLimit &&
         w.pad_before < kLimit;
}

}  // namespace

std::size_t separable_storage_floats(const Pool2dShape& s, std::int64_t planes) noexcept {
  if (!shape_in_range(s) || planes <= 0 || planes >= (std::int64_t{1} << 20)) return SIZE_MAX;
  const Layout l = layout(s);
  const Parts n = parts(s, l, planes);
  return static_cast<std::size_t>(n.padded + n.row_max + n.out);
}

void max_planes_separable(PoolRowFn row, const Pool2dShape& s, const float* x, float* y, std::int64_t planes,
                          const float** rows) {
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  const Layout l = layout(s);
  const Parts n = parts(s, l, planes);
  const std::size_t need = static_cast<std::size_t>(n.padded + n.row_max + n.out);
  if (storage.size() < need) storage.resize(need);
  float* padded = storage.data();
  float* row_max = padded + n.padded;
  float* out = row_max + n.row_max;
  const float minus_inf = -std::numeric_limits<float>::infinity();

  // The layout: -inf everywhere but the input's own cells.
  std::fill(padded, padded + n.padded, minus_inf);
  const std::int64_t before = std::min(W.pad_before, l.p);
  const std::int64_t copied = std::max<std::int64_t>(0, std::min(W.in, l.p - before));
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const float* src = x + plane * H.in * W.in;
    float* dst = padded + (plane * l.r + H.pad_before) * l.p + before;
    for (std::int64_t h = 0; h < H.in; ++h) {
      std::memcpy(dst + h * l.p, src + h * W.in, static_cast<std::size_t>(copied) * sizeof(float));
    }
  }

  // Pass 1: every laid-out row's maxima, one call.
  const float* source = padded;
  row(PoolKind::Max, &source, 1, W.kernel, W.stride, W.dilation, l.rows(planes) * l.q, row_max);

  // Pass 2: at height stride 1 one call over every plane's R rows; else one call per output row.
  const std::size_t out_bytes = static_cast<std::size_t>(W.out) * sizeof(float);
  if (H.stride == 1) {
    for (std::int64_t ky = 0; ky < H.kernel; ++ky) rows[static_cast<std::size_t>(ky)] = row_max + ky * H.dilation * l.q;
    row(PoolKind::Max, rows, H.kernel, 1, 1, 1, planes * l.r * l.q, out);
    for (std::int64_t plane = 0; plane < planes; ++plane) {
      for (std::int64_t oy = 0; oy < H.out; ++oy) {
        std::memcpy(y + (plane * H.out + oy) * W.out, out + (plane * l.r + oy) * l.q, out_bytes);
      }
    }
  } else {
    for (std::int64_t plane = 0; plane < planes; ++plane) {
      for (std::int64_t oy = 0; oy < H.out; ++oy) {
        const float* first = row_max + (plane * l.r + oy * H.stride) * l.q;
        for (std::int64_t ky = 0; ky < H.kernel; ++ky)
          rows[static_cast<std::size_t>(ky)] = first + ky * H.dilation * l.q;
        row(PoolKind::Max, rows, H.kernel, 1, 1, 1, W.out, y + (plane * H.out + oy) * W.out);
      }
    }
  }

  // Outputs left at -inf: the literal rule decides between -inf, NaN and the lowest finite value.
  const std::int64_t outputs = planes * H.out * W.out;
  bool any = false;
  for (std::int64_t i = 0; i < outputs; ++i) any |= is_minus_inf(y[i]);
  if (!any) return;
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const float* src = x + plane * H.in * W.in;
    float* dst = y + plane * H.out * W.out;
    for (std::int64_t i = 0; i < H.out * W.out; ++i) {
      if (is_minus_inf(dst[i])) dst[i] = max_one(s, src, i / W.out, i % W.out);
    }
  }
}

}  // namespace onemodel::opt::pool
