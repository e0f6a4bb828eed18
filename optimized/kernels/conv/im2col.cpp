// im2col and col2im (see im2col.hpp). For a kernel column kx the input columns a row of outputs
// reads are ox*sw - pl + kx*dw: the outputs whose column lies inside the input form one range,
// copied (stride 1: memcpy) with zeros on either side.
#include "optimized/kernels/conv/im2col.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "optimized/frame/canonical_nan.hpp"
#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt {
namespace {

// The range [first, past) of n in [0, count) with 0 <= n*step + offset < limit (step > 0).
void inside_range(std::ptrdiff_t offset, std::ptrdiff_t step, std::ptrdiff_t limit, std::ptrdiff_t count,
                  std::ptrdiff_t& first, std::ptrdiff_t& past) noexcept {
  // n >= ceil(-offset / step), n < ceil((limit - offset) / step)
  auto ceil_div = [](std::ptrdiff_t a, std::ptrdiff_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  first = std::clamp<std::ptrdiff_t>(ceil_div(-offset, step), 0, count);
  past = std::clamp<std::ptrdiff_t>(ceil_div(limit - offset, step), first, count);
}

}  // namespace

void im2col_rows_f32(const Conv2dShape& s, const float* x_group, std::size_t row_begin, std::size_t row_end,
                     float* col) noexcept {
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h), out_w = static_cast<std::ptrdiff_t>(s.out_w);
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t sh = static_cast<std::ptrdiff_t>(s.stride_h), sw = static_cast<std::ptrdiff_t>(s.stride_w);
  const std::size_t taps = s.taps();
  for (std::size_t r = row_begin; r < row_end; ++r) {
    const std::size_t c = r / taps, ky = (r % taps) / s.kernel_w, kx = r % s.kernel_w;
    const float* plane = x_group + c * s.in_plane();
    float* dst = col + r * s.out_plane();
    const std::ptrdiff_t y0 = static_cast<std::ptrdiff_t>(ky * s.dilation_h) - static_cast<std::ptrdiff_t>(s.pad_top);
    const std::ptrdiff_t x0 = static_cast<std::ptrdiff_t>(kx * s.dilation_w) - static_cast<std::ptrdiff_t>(s.pad_left);
    std::ptrdiff_t oy_first = 0, oy_past = 0, ox_first = 0, ox_past = 0;
    inside_range(y0, sh, in_h, out_h, oy_first, oy_past);
    inside_range(x0, sw, in_w, out_w, ox_first, ox_past);
    std::fill(dst, dst + oy_first * out_w, 0.0f);
    for (std::ptrdiff_t oy = oy_first; oy < oy_past; ++oy) {
      float* row = dst + oy * out_w;
      const float* src = plane + (oy * sh + y0) * in_w + ox_first * sw + x0;
      std::fill(row, row + ox_first, 0.0f);
      if (sw == 1) {
        std::memcpy(row + ox_first, src, static_cast<std::size_t>(ox_past - ox_first) * sizeof(float));
      } else {
        for (std::ptrdiff_t ox = ox_first; ox < ox_past; ++ox, src += sw) row[ox] = *src;
      }
      std::fill(row + ox_past, row + out_w, 0.0f);
    }
    std::fill(dst + oy_past * out_w, dst + out_h * out_w, 0.0f);
  }
}

Im2colTap im2col_tap(const Conv2dShape& s, std::size_t ky, std::size_t kx) noexcept {
  Im2colTap t{};
  t.y0 = static_cast<std::ptrdiff_t>(ky * s.dilation_h) - static_cast<std::ptrdiff_t>(s.pad_top);
  t.x0 = static_cast<std::ptrdiff_t>(kx * s.dilation_w) - static_cast<std::ptrdiff_t>(s.pad_left);
  inside_range(t.y0, static_cast<std::ptrdiff_t>(s.stride_h), static_cast<std::ptrdiff_t>(s.in_h),
               static_cast<std::ptrdiff_t>(s.out_h), t.oy_first, t.oy_past);
  inside_range(t.x0, static_cast<std::ptrdiff_t>(s.stride_w), static_cast<std::ptrdiff_t>(s.in_w),
               static_cast<std::ptrdiff_t>(s.out_w), t.ox_first, t.ox_past);
  return t;
}

bool im2col_strip_pieces(const Conv2dShape& s, std::size_t col, std::size_t valid, Im2colPiece* pieces,
                         std::size_t* first) noexcept {
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t sh = static_cast<std::ptrdiff_t>(s.stride_h), sw = static_cast<std::ptrdiff_t>(s.stride_w);
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(valid);
  std::size_t used = 0;
  for (std::size_t tap = 0; tap < s.taps(); ++tap) {
    first[tap] = used;
    const Im2colTap t = im2col_tap(s, tap / s.kernel_w, tap % s.kernel_w);
    std::ptrdiff_t oy = static_cast<std::ptrdiff_t>(col) / out_w, ox = static_cast<std::ptrdiff_t>(col) % out_w, j = 0;
    while (j < count) {
      const std::ptrdiff_t segment = std::min(out_w - ox, count - j);
      if (oy >= t.oy_first && oy < t.oy_past) {
        const std::ptrdiff_t lo = std::clamp(t.ox_first, ox, ox + segment);
        const std::ptrdiff_t hi = std::clamp(t.ox_past, lo, ox + segment);
        if (hi > lo) {
          if (used == kIm2colMaxPieces) return false;
          Im2colPiece& piece = pieces[used++];
          piece.src = (oy * sh + t.y0) * in_w + (lo * sw + t.x0);
          piece.at = j + (lo - ox);
          piece.len = hi - lo;
          piece.lanes = static_cast<std::uint32_t>(((std::uint64_t{1} << piece.len) - 1u) << piece.at);
        }
      }
      j += segment;
      ++oy;
      ox = 0;
    }
  }
  first[s.taps()] = used;
  return true;
}

bool im2col_contiguous_taps(std::size_t taps, const Im2colPiece* pieces, const std::size_t* first,
                            std::ptrdiff_t* offsets, std::uint32_t* masks) noexcept {
  for (std::size_t tap = 0; tap < taps; ++tap) {
    offsets[tap] = 0;
    masks[tap] = 0;
    for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) {
      const std::ptrdiff_t offset = pieces[i].src - pieces[i].at;
      if (i != first[tap] && offset != offsets[tap]) return false;
      offsets[tap] = offset;
      masks[tap] |= pieces[i].lanes;
    }
  }
  return true;
}

namespace {

// The registry table, from the list (im2col_list.inc).
constexpr Im2colVariant kIm2colVariants[] = {
#define ONEMODEL_IM2COL_VARIANT(fn, isa, name) Im2colVariant{name, Isa::isa, fn},
#include "optimized/kernels/conv/im2col_list.inc"
};

}  // namespace

std::span<const Im2colVariant> im2col_variants() noexcept { return kIm2colVariants; }

Im2colStripFn im2col_strip_for(Isa isa) noexcept {
  static const VariantChoice<Im2colVariant> choice{std::span<const Im2colVariant>(kIm2colVariants)};
  return choice[isa].strip;
}

void im2col_strip_f32(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc, std::size_t col,
                      std::size_t valid, std::size_t nr, float* out) noexcept {
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t sh = static_cast<std::ptrdiff_t>(s.stride_h), sw = static_cast<std::ptrdiff_t>(s.stride_w);
  const std::ptrdiff_t first_oy = static_cast<std::ptrdiff_t>(col) / out_w;
  const std::ptrdiff_t first_ox = static_cast<std::ptrdiff_t>(col) % out_w;
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(valid);
  // Per tap (ky, kx): found once per strip, not per row.
  constexpr std::size_t kMaxTaps = 64;
  Im2colTap taps[kMaxTaps];
  const std::size_t tap_count = s.taps();
  const bool tabled = tap_count <= kMaxTaps;
  if (tabled) {
    for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
      for (std::size_t kx = 0; kx < s.kernel_w; ++kx) taps[ky * s.kernel_w + kx] = im2col_tap(s, ky, kx);
    }
  }
  // Row p is (c, ky, kx) with p = (c*KH + ky)*KW + kx: decomposed once, then stepped.
  std::size_t c = p0 / tap_count, tap = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * nr;
    const Im2colTap t = tabled ? taps[tap] : im2col_tap(s, tap / s.kernel_w, tap % s.kernel_w);
    const float* origin_plane = x_group + c * s.in_plane();
    // The strip's columns, one output row's segment at a time.
    std::ptrdiff_t oy = first_oy, ox = first_ox, j = 0;
    while (j < count) {
      const std::ptrdiff_t segment = std::min(out_w - ox, count - j);
      float* seg = dst + j;  // seg[x - ox] is output column x of this row
      if (oy < t.oy_first || oy >= t.oy_past) {
        std::fill(seg, seg + segment, 0.0f);
      } else {
        const std::ptrdiff_t lo = std::clamp(t.ox_first, ox, ox + segment);
        const std::ptrdiff_t hi = std::clamp(t.ox_past, lo, ox + segment);
        std::fill(seg, seg + (lo - ox), 0.0f);
        if (hi > lo) {
          // Only an inside range forms an input address (its row and columns lie in the input).
          const float* src = origin_plane + (oy * sh + t.y0) * in_w + (lo * sw + t.x0);
          if (sw == 1) {
            std::memcpy(seg + (lo - ox), src, static_cast<std::size_t>(hi - lo) * sizeof(float));
          } else {
            for (std::ptrdiff_t x = 0; x < hi - lo; ++x) seg[lo - ox + x] = src[x * sw];
          }
        }
        std::fill(seg + (hi - ox), seg + segment, 0.0f);
      }
      j += segment;
      ++oy;
      ox = 0;
    }
    std::fill(dst + valid, dst + nr, 0.0f);
    if (++tap == tap_count) {
      tap = 0;
      ++c;
    }
  }
}

void col2im_plane_f32(const Conv2dShape& s, const float* col, const float* bias, bool exact, float* out) noexcept {
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h), out_w = static_cast<std::ptrdiff_t>(s.out_w);
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t sh = static_cast<std::ptrdiff_t>(s.stride_h), sw = static_cast<std::ptrdiff_t>(s.stride_w);
  std::fill(out, out + s.out_plane(), 0.0f);
  // Taps outermost: one tap lands on distinct outputs, so every output receives its taps in
  // increasing tap order, each as one rounded addition to the running sum.
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const float* src = col + (ky * s.kernel_w + kx) * s.in_plane();
      const std::ptrdiff_t y0 = static_cast<std::ptrdiff_t>(ky * s.dilation_h) - static_cast<std::ptrdiff_t>(s.pad_top);
      const std::ptrdiff_t x0 =
          static_cast<std::ptrdiff_t>(kx * s.dilation_w) - static_cast<std::ptrdiff_t>(s.pad_left);
      std::ptrdiff_t iy_first = 0, iy_past = 0, ix_first = 0, ix_past = 0;
      inside_range(y0, sh, out_h, in_h, iy_first, iy_past);
      inside_range(x0, sw, out_w, in_w, ix_first, ix_past);
      for (std::ptrdiff_t iy = iy_first; iy < iy_past; ++iy) {
        float* row = out + (iy * sh + y0) * out_w + x0;
        const float* from = src + iy * in_w;
        if (sw == 1) {
          for (std::ptrdiff_t ix = ix_first; ix < ix_past; ++ix) row[ix] = row[ix] + from[ix];
        } else {
          for (std::ptrdiff_t ix = ix_first; ix < ix_past; ++ix) row[ix * sw] = row[ix * sw] + from[ix];
        }
      }
    }
  }
  const float b = bias != nullptr ? *bias : 0.0f;
  for (std::size_t i = 0; i < s.out_plane(); ++i) {
    float v = out[i];
    if (bias != nullptr) v = v + b;
    out[i] = exact ? canonical_nan(v) : v;
  }
}

}  // namespace onemodel::opt
