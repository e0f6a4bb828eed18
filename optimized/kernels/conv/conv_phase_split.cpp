// Phase planes of strided convolutions (see conv_phase_split.hpp).
#include "optimized/kernels/conv/conv_phase_split.hpp"

#include <algorithm>
#include <cstring>

namespace onemodel::opt {
namespace {

// kernels-gemm.md "Fixed chunks": half a nanosecond per element packed or copied.
constexpr double kCopyNanoseconds = 0.5;
// Channels per chunk of the split: a few planes each, so two threads share even a narrow layer.
constexpr std::size_t kSplitChannelsPerChunk = 4;

// Whether some tap reads phase q of an axis: tap k reads inputs k * dilation - pad + o * stride,
// all of phase (k * dilation - pad) mod stride.
bool phase_read(std::size_t q, std::size_t kernel, std::size_t dilation, std::size_t pad, std::size_t stride) noexcept {
  for (std::size_t k = 0; k < kernel; ++k) {
    const std::size_t shifted = k * dilation + stride * (pad / stride + 1) - pad;  // >= 0, same residue
    if (shifted % stride == q) return true;
  }
  return false;
}

// The strides conv_reads_phase_planes takes (see conv_phase_split.hpp).
bool phase_strides(const Conv2dShape& s) noexcept {
  return s.stride_w >= 2 && s.stride_w <= kConvPhaseMaxStride && s.stride_h >= 1 && s.stride_h <= kConvPhaseMaxStride;
}

}  // namespace

bool conv_phase_matrix_in_place(const Conv2dShape& s) noexcept {
  if (!phase_strides(s) || s.pad_top != 0 || s.pad_left != 0) return false;
  const bool one_by_one = s.kernel_h == 1 && s.kernel_w == 1;
  const bool patches = s.kernel_h == s.stride_h && s.kernel_w == s.stride_w && s.dilation_h == 1 && s.dilation_w == 1;
  if (!one_by_one && !patches) return false;
  const ConvPhaseLayout layout = conv_phase_layout(s);
  // Patches: every window inside the input. With in_w % stride != 0 the phases at and past the
  // remainder are a column short of layout.cols, and an end pad (SAME_UPPER) would have the last
  // window read its zeros from floats the split never writes (found by the differential
  // property test: a 1-D length-5 Conv, kernel 2, stride 2, SAME_UPPER).
  if (patches && (s.in_h % s.stride_h != 0 || s.in_w % s.stride_w != 0)) return false;
  // No input row or column left past the last window (1x1: none past the last output), and no
  // end padding read: output (oy, ox) of tap (ky, kx) reads input (oy * s + ky, ox * s + kx),
  // position (oy, ox) of phase (ky, kx), so each im2col row is one phase plane, whole.
  return s.out_h == layout.rows && s.out_w == layout.cols;
}

std::size_t conv_phase_matrix_row_stride(const Conv2dShape& s) noexcept {
  const ConvPhaseLayout layout = conv_phase_layout(s);
  // 1x1: row c is phase (0, 0) of channel c. Patches: row (c, ky, kx) is phase (ky, kx) of channel
  // c, and a channel's stride * stride phases are its taps in (ky, kx) order, so rows are planes.
  return s.taps() == 1 ? layout.channel_floats() : layout.plane();
}

bool conv_reads_phase_planes(Isa isa, const Conv2dShape& s) noexcept {
  if (!phase_strides(s)) return false;
  if (s.in_h == 0 || s.in_w == 0 || s.out_plane() == 0) return false;
  if (conv_phase_matrix_in_place(s)) return true;
  // The AVX-512 path keeps its own stride-2 filler (masked loads and a permutation per 16 columns,
  // im2col_strip_avx512.cpp): no AVX-512 machine has measured the split against it yet.
  return isa != Isa::Avx512 && s.taps() <= kIm2colMaxTaps;
}

ConvPhaseLayout conv_phase_layout(const Conv2dShape& s) noexcept {
  ConvPhaseLayout layout;
  layout.stride_y = s.stride_h;
  layout.stride_x = s.stride_w;
  layout.rows = (s.in_h + s.stride_h - 1) / s.stride_h;
  layout.cols = (s.in_w + s.stride_w - 1) / s.stride_w;
  return layout;
}

std::size_t conv_phase_split_floats(const Conv2dShape& s) noexcept {
  return s.in_per_group() * conv_phase_layout(s).channel_floats();
}

void conv_phase_split_channels(const Conv2dShape& s, const float* x_group, std::size_t c_begin, std::size_t c_end,
                               float* split) noexcept {
  const ConvPhaseLayout layout = conv_phase_layout(s);
  const std::size_t sy = layout.stride_y, sx = layout.stride_x, cols = layout.cols, plane = layout.plane();
  bool rows_read[kConvPhaseMaxStride] = {}, cols_read[kConvPhaseMaxStride] = {};
  for (std::size_t q = 0; q < sy; ++q) rows_read[q] = phase_read(q, s.kernel_h, s.dilation_h, s.pad_top, sy);
  for (std::size_t q = 0; q < sx; ++q) cols_read[q] = phase_read(q, s.kernel_w, s.dilation_w, s.pad_left, sx);
  for (std::size_t c = c_begin; c < c_end; ++c) {
    const float* image = x_group + c * s.in_plane();
    float* channel = split + c * layout.channel_floats();
    for (std::size_t iy = 0; iy < s.in_h; ++iy) {
      const std::size_t qy = iy % sy;
      if (!rows_read[qy]) continue;
      const float* row = image + iy * s.in_w;
      float* phase_row = channel + qy * sx * plane + (iy / sy) * cols;
      if (sx == 2 && cols_read[0] && cols_read[1]) {
        // Both column phases: one pass over the row, which the compiler turns into
        // de-interleaving shuffles.
        float* even = phase_row;
        float* odd = phase_row + plane;
        const std::size_t pairs = s.in_w / 2;
        for (std::size_t j = 0; j < pairs; ++j) {
          even[j] = row[2 * j];
          odd[j] = row[2 * j + 1];
        }
        if (s.in_w % 2 != 0) even[pairs] = row[s.in_w - 1];
        continue;
      }
      for (std::size_t qx = 0; qx < sx; ++qx) {
        if (!cols_read[qx] || qx >= s.in_w) continue;
        float* dst = phase_row + qx * plane;
        const std::size_t count = (s.in_w - qx + sx - 1) / sx;
        if (sx == 2) {
          // A constant stride, which the compiler vectorizes (a 1x1 downsample reads one phase).
          for (std::size_t j = 0; j < count; ++j) dst[j] = row[2 * j + qx];
        } else {
          for (std::size_t j = 0; j < count; ++j) dst[j] = row[j * sx + qx];
        }
      }
    }
  }
}

void conv_phase_split_group(const KernelContext& context, const Conv2dShape& s, const float* x_group, float* split) {
  const std::size_t channels = s.in_per_group();
  const std::size_t chunks = (channels + kSplitChannelsPerChunk - 1) / kSplitChannelsPerChunk;
  context.parallel_for(chunks, static_cast<double>(channels * s.in_plane()) * kCopyNanoseconds, [&](std::size_t chunk) {
    const std::size_t begin = chunk * kSplitChannelsPerChunk;
    conv_phase_split_channels(s, x_group, begin, std::min(channels, begin + kSplitChannelsPerChunk), split);
  });
}

void im2col_fill_pieces_f32(const float* x, std::size_t channel_stride, std::size_t taps, std::size_t p0,
                            std::size_t kc, const Im2colPiece* pieces, const std::size_t* first, std::size_t nr,
                            float* out) noexcept {
  std::size_t c = p0 / taps, tap = p0 % taps;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * nr;
    const float* channel = x + c * channel_stride;
    std::fill(dst, dst + nr, 0.0f);
    for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) {
      std::memcpy(dst + pieces[i].at, channel + pieces[i].src, static_cast<std::size_t>(pieces[i].len) * sizeof(float));
    }
    if (++tap == taps) {
      tap = 0;
      ++c;
    }
  }
}

void fill_conv_phase_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid,
                           std::size_t nr, float* out) {
  const ConvPhaseSource& source = *static_cast<const ConvPhaseSource*>(state);
  const Conv2dShape& s = *source.shape;
  Im2colPiece pieces[kIm2colMaxPieces];
  std::size_t first[kIm2colMaxTaps + 1];
  if (s.taps() > kIm2colMaxTaps || valid > 32 || nr > 32 || !im2col_strip_pieces(s, col, valid, pieces, first)) {
    // More pieces than the table holds (a map a few columns wide under a large kernel): the
    // strided fill from the image itself.
    return im2col_strip_f32(s, source.x_group, p0, kc, col, valid, nr, out);
  }
  // Each piece reads input row iy from column ix every stride: consecutive floats of one phase.
  const ConvPhaseLayout layout = conv_phase_layout(s);
  for (std::size_t i = 0; i < first[s.taps()]; ++i) {
    const std::size_t at = static_cast<std::size_t>(pieces[i].src);
    pieces[i].src = static_cast<std::ptrdiff_t>(layout.offset(at / s.in_w, at % s.in_w));
  }
#if defined(__x86_64__)
  if (source.isa == Isa::Avx2 && nr == 16) {
    return im2col_fill_pieces_f32__avx2(source.split, layout.channel_floats(), s.taps(), p0, kc, pieces, first, out);
  }
#endif
  im2col_fill_pieces_f32(source.split, layout.channel_floats(), s.taps(), p0, kc, pieces, first, nr, out);
}

}  // namespace onemodel::opt
