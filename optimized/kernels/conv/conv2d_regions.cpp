// Convolution by tap regions (see conv2d_regions.hpp). Along one axis the kernel taps an output
// o reads inside the input form one range [k_first, k_past) (positions o*s - pad + k*d grow with
// k); consecutive outputs with the same range form a band. The regions are the row bands, each
// whole or crossed with the column bands.
#include "optimized/kernels/conv/conv2d_regions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "optimized/kernels/conv/conv_bias_epilogue.hpp"

namespace onemodel::opt {
namespace {

struct Band {
  std::size_t begin, end;       // outputs
  std::size_t k_first, k_past;  // taps inside the input for each of them
};

std::ptrdiff_t ceil_div(std::ptrdiff_t a, std::ptrdiff_t b) noexcept { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The bands of one axis: outputs [0, out) with input positions o*stride - pad + k*dilation.
std::vector<Band> bands_of(std::size_t out, std::size_t in, std::size_t stride, std::size_t pad, std::size_t dilation,
                           std::size_t kernel) {
  std::vector<Band> bands;
  const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(kernel), d = static_cast<std::ptrdiff_t>(dilation);
  for (std::size_t o = 0; o < out; ++o) {
    // 0 <= start + k*d < in with start = o*stride - pad.
    const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(o * stride) - static_cast<std::ptrdiff_t>(pad);
    const std::ptrdiff_t first = std::clamp<std::ptrdiff_t>(ceil_div(-start, d), 0, k);
    const std::ptrdiff_t past =
        std::clamp<std::ptrdiff_t>(ceil_div(static_cast<std::ptrdiff_t>(in) - start, d), first, k);
    const std::size_t f = static_cast<std::size_t>(first), p = static_cast<std::size_t>(past);
    if (!bands.empty() && bands.back().k_first == f && bands.back().k_past == p) {
      bands.back().end = o + 1;
    } else {
      bands.push_back(Band{o, o + 1, f, p});
    }
  }
  return bands;
}

bool same_taps(const ConvTapRegion& a, const ConvTapRegion& b) noexcept {
  return a.ky_first == b.ky_first && a.ky_past == b.ky_past && a.kx_first == b.kx_first && a.kx_past == b.kx_past;
}

// The reduced im2col matrix of one region, image and group as the product's strip source: row
// p = (c, ty, tx) over the region's taps, column j = the region's outputs row by row. The rows
// a region's taps read lie inside the input (its row band's); a column can lie in the padding
// when the region spans column bands of other taps, and is then +0 as in im2col.
struct RegionSource {
  const Conv2dShape* shape;
  const ConvTapRegion* region;
  const float* x_group;
};

void fill_region_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid,
                       std::size_t nr, float* out) {
  const RegionSource& source = *static_cast<const RegionSource*>(state);
  const Conv2dShape& s = *source.shape;
  const ConvTapRegion& r = *source.region;
  const std::size_t tap_w = r.kx_past - r.kx_first, taps = r.taps(), width = r.cols();
  const std::ptrdiff_t sw = static_cast<std::ptrdiff_t>(s.stride_w), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  std::size_t c = p0 / taps, t = p0 % taps;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * nr;
    const std::size_t ky = r.ky_first + t / tap_w, kx = r.kx_first + t % tap_w;
    // Output (oy, ox) reads input (oy*sh - pt + ky*dh, ox*sw + x0); inside for ox in [lo, hi).
    const std::ptrdiff_t x0 = static_cast<std::ptrdiff_t>(kx * s.dilation_w) - static_cast<std::ptrdiff_t>(s.pad_left);
    const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(ceil_div(-x0, sw), 0);
    const std::ptrdiff_t hi = std::max(ceil_div(in_w - x0, sw), lo);
    const float* plane = source.x_group + c * s.in_plane();
    std::size_t j = 0;
    while (j < valid) {
      const std::size_t at = col + j;
      const std::size_t oy = r.oy_begin + at / width;
      const std::ptrdiff_t ox = static_cast<std::ptrdiff_t>(r.ox_begin + at % width);
      const std::ptrdiff_t segment = static_cast<std::ptrdiff_t>(std::min(width - at % width, valid - j));
      float* seg = dst + j;  // seg[i] is output column ox + i of row oy
      const std::ptrdiff_t a = std::clamp(lo, ox, ox + segment), b = std::clamp(hi, a, ox + segment);
      std::fill(seg, seg + (a - ox), 0.0f);
      if (b > a) {
        // Only an inside range forms an input address.
        const std::size_t iy = oy * s.stride_h + ky * s.dilation_h - s.pad_top;
        const float* src = plane + static_cast<std::ptrdiff_t>(iy) * in_w + a * sw + x0;
        if (sw == 1) {
          std::memcpy(seg + (a - ox), src, static_cast<std::size_t>(b - a) * sizeof(float));
        } else {
          for (std::ptrdiff_t i = 0; i < b - a; ++i) seg[a - ox + i] = src[i * sw];
        }
      }
      std::fill(seg + (b - ox), seg + segment, 0.0f);
      j += static_cast<std::size_t>(segment);
    }
    std::fill(dst + valid, dst + nr, 0.0f);
    if (++t == taps) {
      t = 0;
      ++c;
    }
  }
}

// What a region costs in the product, for choosing between regions (never for the values): its
// columns rounded up to a microkernel's 32 (the AVX-512 tile's width) times its taps, plus a
// fixed cost per product call worth 32 columns of one tap.
constexpr std::size_t kCostColumns = 32;
std::size_t region_cost(std::size_t outputs, std::size_t taps) noexcept {
  if (taps == 0) return 0;
  return ((outputs + kCostColumns - 1) / kCostColumns * kCostColumns) * taps + kCostColumns;
}

}  // namespace

ConvRegionPlan conv2d_plan_regions(Isa isa, const Conv2dShape& s, const float* w) {
  ConvRegionPlan plan;
  const std::size_t m = s.out_per_group(), cg = s.in_per_group(), taps = s.taps();
  if (s.groups == 0 || m == 0 || cg == 0 || taps == 0 || s.out_plane() == 0 || w == nullptr) return plan;
  const std::vector<Band> rows = bands_of(s.out_h, s.in_h, s.stride_h, s.pad_top, s.dilation_h, s.kernel_h);
  const std::vector<Band> cols = bands_of(s.out_w, s.in_w, s.stride_w, s.pad_left, s.dilation_w, s.kernel_w);
  if (rows.size() * cols.size() > kMaxConvRegions) return plan;
  // Products per image and group: the regions' against the whole im2col product's.
  // Each row band is one region as wide as the plane (through the union of its column bands'
  // taps, the columns outside read as +0) or one region per column band, whichever costs less.
  std::size_t reduced = 0;
  std::vector<ConvTapRegion> regions;
  for (const Band& by : rows) {
    std::vector<ConvTapRegion> split;
    std::size_t split_cost = 0, kx_first = s.kernel_w, kx_past = 0;
    for (const Band& bx : cols) {
      ConvTapRegion r{by.begin, by.end, bx.begin, bx.end, by.k_first, by.k_past, bx.k_first, bx.k_past, 0};
      if (r.taps() == 0) r.ky_first = r.ky_past = r.kx_first = r.kx_past = 0;
      if (bx.k_past > bx.k_first) {
        kx_first = std::min(kx_first, bx.k_first);
        kx_past = std::max(kx_past, bx.k_past);
      }
      split_cost += region_cost(r.rows() * r.cols(), r.taps());
      split.push_back(r);
    }
    ConvTapRegion whole{by.begin, by.end, 0, s.out_w, by.k_first, by.k_past, kx_first, std::max(kx_first, kx_past), 0};
    if (whole.taps() == 0) whole.ky_first = whole.ky_past = whole.kx_first = whole.kx_past = 0;
    if (split.size() == 1 || region_cost(whole.rows() * whole.cols(), whole.taps()) <= split_cost) {
      split.assign(1, whole);
    }
    for (const ConvTapRegion& r : split) {
      reduced += r.rows() * r.cols() * r.taps();
      regions.push_back(r);
    }
  }
  if (2 * reduced > s.out_plane() * taps) return plan;
  // One pack per distinct tap rectangle, shared by the regions that read through it.
  std::vector<const ConvTapRegion*> distinct;
  std::size_t packed_taps = 0;
  for (ConvTapRegion& r : regions) {
    if (r.taps() == 0) continue;
    std::size_t i = 0;
    while (i < distinct.size() && !same_taps(*distinct[i], r)) ++i;
    if (i == distinct.size()) {
      distinct.push_back(&r);
      packed_taps += r.taps();
    }
    r.pack = i;
  }
  if (packed_taps > kMaxConvRegionWeightCopies * taps) return plan;
  // A padding tap is a real product with +0: leaving it out is exact only for finite weights.
  const std::size_t weights = s.out_channels * cg * taps;
  for (std::size_t i = 0; i < weights; ++i) {
    if (!std::isfinite(w[i])) return plan;
  }
  for (const ConvTapRegion* r : distinct) {
    const std::size_t t = r->taps(), tap_w = r->kx_past - r->kx_first, k = cg * t;
    std::vector<PackedA> groups;
    groups.reserve(s.groups);
    std::vector<float> a(m * k);
    for (std::size_t g = 0; g < s.groups; ++g) {
      // Column (c, ty, tx) of row oc: w[g*m + oc][c][ky_first + ty][kx_first + tx].
      for (std::size_t oc = 0; oc < m; ++oc) {
        const float* filter = w + (g * m + oc) * cg * taps;
        for (std::size_t c = 0; c < cg; ++c) {
          for (std::size_t i = 0; i < t; ++i) {
            const std::size_t ky = r->ky_first + i / tap_w, kx = r->kx_first + i % tap_w;
            a[oc * k + c * t + i] = filter[c * taps + ky * s.kernel_w + kx];
          }
        }
      }
      groups.push_back(pack_a_f32(isa, m, k, MatrixView{a.data(), static_cast<std::ptrdiff_t>(k), 1}));
    }
    plan.packs.push_back(std::move(groups));
  }
  for (const ConvTapRegion& r : regions) {
    if (r.cols() != s.out_w) plan.workspace_floats = std::max(plan.workspace_floats, m * r.rows() * r.cols());
  }
  plan.regions = std::move(regions);
  return plan;
}

void conv2d_f32_regions(const KernelContext& context, const Conv2dShape& s, const ConvRegionPlan& plan, const float* x,
                        const float* bias, float* y, float* workspace, const ConvActivation* activation) {
  const std::size_t m = s.out_per_group(), plane = s.out_plane();
  if (s.batch == 0 || m == 0 || plane == 0) return;
  for (std::size_t image = 0; image < s.batch; ++image) {
    for (std::size_t g = 0; g < s.groups; ++g) {
      const float* x_group = x + (image * s.in_channels + g * s.in_per_group()) * s.in_plane();
      float* y_group = y + (image * s.out_channels + g * m) * plane;
      const ConvBiasState state{bias != nullptr ? bias + g * m : nullptr, context.exact, activation, context.isa, g * m};
      const GemmEpilogue epilogue{conv_bias_epilogue, &state};
      const bool finish = bias != nullptr || activation != nullptr;
      for (const ConvTapRegion& r : plan.regions) {
        const std::size_t n = r.rows() * r.cols();
        // A region as wide as the plane is contiguous in Y; a narrower one is computed into the
        // workspace and copied to its place.
        const bool in_place = r.cols() == s.out_w;
        float* c = in_place ? y_group + r.oy_begin * s.out_w : workspace;
        const std::ptrdiff_t ldc = static_cast<std::ptrdiff_t>(in_place ? plane : n);
        if (r.taps() == 0) {
          // Every tap of these outputs is padding: the sum is +0 (finite weights), then the bias.
          for (std::size_t oc = 0; oc < m; ++oc) std::fill_n(c + static_cast<std::ptrdiff_t>(oc) * ldc, n, 0.0f);
          if (finish) conv_bias_epilogue(&state, c, ldc, 0, 0, m, n);
        } else {
          const RegionSource source{&s, &r, x_group};
          gemm_f32_packed_a_sourced(context, m, n, s.in_per_group() * r.taps(), plan.packs[r.pack][g],
                                    BStripSource{fill_region_strip, &source}, c, ldc, finish ? &epilogue : nullptr);
        }
        if (in_place) continue;
        for (std::size_t oc = 0; oc < m; ++oc) {
          const float* from = c + oc * n;
          float* to = y_group + oc * plane + r.oy_begin * s.out_w + r.ox_begin;
          for (std::size_t row = 0; row < r.rows(); ++row) {
            std::memcpy(to + row * s.out_w, from + row * r.cols(), r.cols() * sizeof(float));
          }
        }
      }
    }
  }
}

}  // namespace onemodel::opt
