// Fast mode's convolution tap by tap (see conv2d_taps.hpp).
#include "optimized/kernels/conv/conv2d_taps.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "optimized/kernels/conv/conv_bias_epilogue.hpp"

namespace onemodel::opt {
namespace {

struct Range {
  std::size_t begin, end;
};

std::ptrdiff_t ceil_div(std::ptrdiff_t a, std::ptrdiff_t b) noexcept { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The outputs o in [0, out) whose input position o*stride - pad + k*dilation lies in [0, in).
Range inside_outputs(std::size_t out, std::size_t in, std::size_t stride, std::size_t pad, std::size_t dilation,
                     std::size_t k) noexcept {
  const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(k * dilation) - static_cast<std::ptrdiff_t>(pad);
  const std::ptrdiff_t s = static_cast<std::ptrdiff_t>(stride), o = static_cast<std::ptrdiff_t>(out);
  const std::ptrdiff_t begin = std::clamp<std::ptrdiff_t>(ceil_div(-offset, s), 0, o);
  const std::ptrdiff_t end = std::clamp<std::ptrdiff_t>(ceil_div(static_cast<std::ptrdiff_t>(in) - offset, s), begin, o);
  return Range{static_cast<std::size_t>(begin), static_cast<std::size_t>(end)};
}

// B of one tap's product, image and group, as a strip source: row c is input channel c, column j
// the tap's j-th output (row by row of its rectangle), the value the tap reads for it (always
// inside the image).
struct TapSource {
  const Conv2dShape* shape;
  const ConvTap* tap;
  const float* x_group;
};

void fill_tap_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid,
                    std::size_t nr, float* out) {
  const TapSource& source = *static_cast<const TapSource*>(state);
  const Conv2dShape& s = *source.shape;
  const ConvTap& t = *source.tap;
  const std::size_t width = t.cols();
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * nr;
    const float* plane = source.x_group + (p0 + p) * s.in_plane();
    for (std::size_t j = 0; j < valid;) {
      const std::size_t at = col + j;
      const std::size_t oy = t.oy_begin + at / width, ox = t.ox_begin + at % width;
      const std::size_t segment = std::min(width - at % width, valid - j);
      const std::size_t iy = oy * s.stride_h + t.ky * s.dilation_h - s.pad_top;
      const std::size_t ix = ox * s.stride_w + t.kx * s.dilation_w - s.pad_left;
      const float* src = plane + iy * s.in_w + ix;
      if (s.stride_w == 1) {
        std::memcpy(dst + j, src, segment * sizeof(float));
      } else {
        for (std::size_t i = 0; i < segment; ++i) dst[j + i] = src[i * s.stride_w];
      }
      j += segment;
    }
    std::fill(dst + valid, dst + nr, 0.0f);
  }
}

// The output planes a transposed tap product adds its finished tiles into (rows: the tap's
// outputs, columns: output channels of the group), at the tap's rectangle.
struct AddIntoOutput {
  const Conv2dShape* shape;
  const ConvTap* tap;
  float* y_group;
};

// The transposed product's A: row j holds the cg input values tap t reads for its j-th output.
void gather_tap_rows(const Conv2dShape& s, const ConvTap& t, const float* x_group, std::size_t cg, float* out) {
  const std::size_t width = t.cols();
  for (std::size_t j = 0; j < t.outputs(); ++j) {
    const std::size_t oy = t.oy_begin + j / width, ox = t.ox_begin + j % width;
    const std::size_t iy = oy * s.stride_h + t.ky * s.dilation_h - s.pad_top;
    const std::size_t ix = ox * s.stride_w + t.kx * s.dilation_w - s.pad_left;
    const float* at = x_group + iy * s.in_w + ix;
    for (std::size_t c = 0; c < cg; ++c) out[j * cg + c] = at[c * s.in_plane()];
  }
}

// GemmEpilogue::apply for a transposed tap product (AddIntoOutput).
void add_transposed_into_output(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col,
                                std::size_t rows, std::size_t cols) {
  const AddIntoOutput& a = *static_cast<const AddIntoOutput*>(state);
  const Conv2dShape& s = *a.shape;
  const ConvTap& t = *a.tap;
  const std::size_t width = t.cols(), plane = s.out_plane();
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t at = row + r;
    const std::size_t position = (t.oy_begin + at / width) * s.out_w + t.ox_begin + at % width;
    const float* from = c + static_cast<std::ptrdiff_t>(r) * ldc;
    float* to = a.y_group + col * plane + position;
    for (std::size_t j = 0; j < cols; ++j) to[j * plane] += from[j];
  }
}

// The most products (inside taps times groups) a plan makes: as many as the tap regions may
// (kMaxConvRegions, conv2d_regions.hpp), 9 for DeepLabV3's 3x3 layers.
constexpr std::size_t kMaxTapProducts = 49;

// Output channels per chunk of the closing pass (bias and activation over whole planes).
constexpr std::size_t kFinishChannels = 16;

}  // namespace

ConvTapPlan conv2d_plan_taps(Isa isa, const Conv2dShape& s, const float* w) {
  ConvTapPlan plan;
  const std::size_t m = s.out_per_group(), cg = s.in_per_group(), taps = s.taps();
  if (s.groups == 0 || m == 0 || cg == 0 || taps == 0 || s.out_plane() == 0 || w == nullptr) return plan;
  std::vector<ConvTap> inside;
  std::size_t products = 0;
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    const Range rows = inside_outputs(s.out_h, s.in_h, s.stride_h, s.pad_top, s.dilation_h, ky);
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const Range cols = inside_outputs(s.out_w, s.in_w, s.stride_w, s.pad_left, s.dilation_w, kx);
      const ConvTap t{ky, kx, rows.begin, rows.end, cols.begin, cols.end};
      if (t.outputs() == 0) continue;
      products += t.outputs();
      inside.push_back(t);
    }
  }
  // Half of the window's products or more inside the image: the im2col product serves better.
  if (2 * products > s.out_plane() * taps) return plan;
  // Many taps and groups make as many small products, each a call of the pool: wav2vec2's
  // positional convolution (768 channels in 16 groups, 128 taps with 64 of padding on either side
  // of 49 frames; about 100 taps inside for 16 groups) took 1839 us tap by tap against 473 through
  // the regions at two threads (session 43, Intel Xeon model 167). At most kMaxTapProducts.
  if (inside.size() * s.groups > kMaxTapProducts) return plan;
  // A padding tap is a product with +0: leaving it out keeps the values only for finite weights.
  const std::size_t weights = s.out_channels * cg * taps;
  for (std::size_t i = 0; i < weights; ++i) {
    if (!std::isfinite(w[i])) return plan;
  }
  // A tap covering the whole plane goes first: its product is stored in place, which also gives
  // every output its first value, so the output needs no clearing.
  const auto covering = std::find_if(inside.begin(), inside.end(),
                                     [&](const ConvTap& t) { return t.outputs() == s.out_plane(); });
  if (covering != inside.end()) std::rotate(inside.begin(), covering, covering + 1);
  plan.first_covers_plane = !inside.empty() && inside.front().outputs() == s.out_plane();
  std::vector<float> a(m * cg);
  for (std::size_t i = 0; i < inside.size(); ++i) {
    const ConvTap& t = inside[i];
    std::vector<PackedA> groups;
    std::vector<PackedB> groups_b;
    for (std::size_t g = 0; g < s.groups; ++g) {
      for (std::size_t oc = 0; oc < m; ++oc) {
        const float* filter = w + (g * m + oc) * cg * taps + t.ky * s.kernel_w + t.kx;
        for (std::size_t c = 0; c < cg; ++c) a[oc * cg + c] = filter[c * taps];
      }
      if (i == 0 && plan.first_covers_plane) {
        groups.push_back(pack_a_f32(isa, m, cg, MatrixView{a.data(), static_cast<std::ptrdiff_t>(cg), 1}));
      } else {
        // Transposed (see conv2d_f32_taps): W_t^T, cg x m, as the product's B.
        groups_b.push_back(pack_b_f32(isa, cg, m, MatrixView{a.data(), 1, static_cast<std::ptrdiff_t>(cg)}));
      }
    }
    plan.packs.push_back(std::move(groups));
    plan.packs_b.push_back(std::move(groups_b));
    if (i > 0 || !plan.first_covers_plane) {
      plan.workspace_floats = std::max(plan.workspace_floats, (m + cg) * t.outputs());
    }
  }
  plan.taps = std::move(inside);
  return plan;
}

void conv2d_f32_taps(const KernelContext& context, const Conv2dShape& s, const ConvTapPlan& plan, const float* x,
                     const float* bias, float* y, float* workspace, const ConvActivation* activation) {
  const std::size_t m = s.out_per_group(), cg = s.in_per_group(), plane = s.out_plane();
  if (s.batch == 0 || m == 0 || plane == 0) return;
  const bool finish = bias != nullptr || activation != nullptr;
  for (std::size_t image = 0; image < s.batch; ++image) {
    for (std::size_t g = 0; g < s.groups; ++g) {
      const float* x_group = x + (image * s.in_channels + g * cg) * s.in_plane();
      float* y_group = y + (image * s.out_channels + g * m) * plane;
      // Outputs no tap reads the image for are +0 before the bias (finite weights).
      if (!plan.first_covers_plane) std::fill_n(y_group, m * plane, 0.0f);
      for (std::size_t i = 0; i < plan.taps.size(); ++i) {
        const ConvTap& t = plan.taps[i];
        const TapSource source{&s, &t, x_group};
        const BStripSource b{fill_tap_strip, &source};
        if (i == 0 && plan.first_covers_plane) {
          gemm_f32_packed_a_sourced(context, m, plane, cg, plan.packs[i][g], b, y_group,
                                    static_cast<std::ptrdiff_t>(plane));
          continue;
        }
        // A tap short of the plane reaches few outputs (the border of a small map): its product
        // runs transposed, the tap's outputs as rows against its weights packed as B, which the
        // product streams strip by strip (a packed A of a few columns was read at a fraction of
        // the memory's rate); the outputs' inputs are gathered once into the workspace.
        const std::size_t n = t.outputs();
        float* a_matrix = workspace + m * n;
        gather_tap_rows(s, t, x_group, cg, a_matrix);
        const AddIntoOutput add{&s, &t, y_group};
        const GemmEpilogue epilogue{add_transposed_into_output, &add};
        gemm_f32_packed(context, n, MatrixView{a_matrix, static_cast<std::ptrdiff_t>(cg), 1}, plan.packs_b[i][g],
                        workspace, static_cast<std::ptrdiff_t>(m), &epilogue);
      }
      if (!finish) continue;
      // The bias, then a fused residual and the activation, once per output on its finished sum
      // (conv_bias_epilogue: the arithmetic of the unfused Conv, Add and activation nodes).
      // C is y here, so a fused residual is read at the output's own positions (first, plane).
      const ConvBiasState state{bias != nullptr ? bias + g * m : nullptr, false, activation, context.isa, g * m,
                                (image * s.out_channels + g * m) * plane, plane};
      const std::size_t chunks = (m + kFinishChannels - 1) / kFinishChannels;
      context.parallel_for(chunks, static_cast<double>(m * plane), [&](std::size_t chunk) {
        const std::size_t row = chunk * kFinishChannels, rows = std::min(kFinishChannels, m - row);
        conv_bias_epilogue(&state, y_group + row * plane, static_cast<std::ptrdiff_t>(plane), row, 0, rows, plane);
      });
    }
  }
}

}  // namespace onemodel::opt
