// Strided convolutions read through phase planes (docs/design.md "Strided convolutions through
// phase planes"). At stride s every output row of a tap reads every s-th input of one input row:
// input (iy, ix) lies in phase (iy mod s, ix mod s) at (iy div s, ix div s), so a tap's inputs for
// consecutive outputs are consecutive floats of one phase plane. The image of a group is split
// into its phase planes once per call (one pass over the input), and then
//   - a 1x1 convolution's im2col matrix is phase (0, 0) itself when it has no padding, and a
//     patch embedding's (kernel = stride) is the whole split: the product reads it in place, as
//     it reads a 1x1 stride-1 input;
//   - any other kernel's strips of the im2col matrix are filled from the planes with the stride-1
//     fillers' short contiguous copies instead of gathers of every other float.
// Only data moves: every strip holds exactly the floats im2col_strip_f32 would put there (the
// inputs, and +0 in the padding), so the product, and with it every bit of every output, is the
// same as with the strided fill (exact-mode.md "Convolution": the order is the im2col rows').
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/im2col.hpp"

namespace onemodel::opt {

// The phase planes of one channel at strides (sy, sx): sy * sx planes of rows x cols floats, phase
// (qy, qx) at (qy * sx + qx) * plane(), input (iy, ix) at row iy / sy, column ix / sx of phase
// (iy % sy, ix % sx). Positions past the input's last row or column are never read.
struct ConvPhaseLayout {
  std::size_t stride_y = 1, stride_x = 1;
  std::size_t rows = 0, cols = 0;  // ceil(in_h / sy), ceil(in_w / sx)
  std::size_t plane() const noexcept { return rows * cols; }
  std::size_t channel_floats() const noexcept { return stride_y * stride_x * plane(); }
  // Where input (iy, ix) of a channel lies in the channel's planes.
  std::size_t offset(std::size_t iy, std::size_t ix) const noexcept {
    return ((iy % stride_y) * stride_x + ix % stride_x) * plane() + (iy / stride_y) * cols + ix / stride_x;
  }
};

// The largest stride split: up to 16 x 16 planes per channel, each a short copy per row; a larger
// stride (a patchify layer past 16) keeps the strided fill.
inline constexpr std::size_t kConvPhaseMaxStride = 16;

// Whether a convolution with packed weights reads its image through phase planes on path `isa`:
// a column stride of 2 to kConvPhaseMaxStride (the gather is along rows; a row stride alone only
// changes which rows a strip reads), a row stride up to kConvPhaseMaxStride (1 for a
// one-dimensional convolution lifted to a map one row high). A 1x1 kernel or a patch embedding
// without padding (its matrix is the split, read in place) on every path; other kernels where the
// path has a stride-1 piece filler that the split pays for (measured, conv_phase_split.cpp).
bool conv_reads_phase_planes(Isa isa, const Conv2dShape& s) noexcept;

// Whether the im2col matrix of `s` is the split itself, read in place (rows
// conv_phase_matrix_row_stride() floats apart): no padding at either end, and a 1x1 kernel (the
// matrix is phase (0, 0) of each channel) or non-overlapping windows, kernel = stride (a patch
// embedding, ViT's 16x16/16: row (c, ky, kx) is phase (ky, kx) of channel c).
bool conv_phase_matrix_in_place(const Conv2dShape& s) noexcept;
std::size_t conv_phase_matrix_row_stride(const Conv2dShape& s) noexcept;

ConvPhaseLayout conv_phase_layout(const Conv2dShape& s) noexcept;

// Floats of one group's split: in_per_group() channels of channel_floats().
std::size_t conv_phase_split_floats(const Conv2dShape& s) noexcept;

// Splits channels [c_begin, c_end) of the group at x_group (in_per_group() planes of in_h x in_w)
// into `split` (conv_phase_split_floats() floats), writing only the phases some tap reads.
void conv_phase_split_channels(const Conv2dShape& s, const float* x_group, std::size_t c_begin, std::size_t c_end,
                               float* split) noexcept;

// The whole group's split on the context's threads (chunks of channels; only data moves, so the
// chunking changes nothing).
void conv_phase_split_group(const KernelContext& context, const Conv2dShape& s, const float* x_group, float* split);

// The strip source of a split group (BStripSource state): the same strips as im2col_strip_f32.
struct ConvPhaseSource {
  const Conv2dShape* shape;
  const float* x_group;  // the image itself, for strips with more pieces than the table holds
  const float* split;    // its phase planes (conv_phase_split_group)
  Isa isa;
};
void fill_conv_phase_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid,
                           std::size_t nr, float* out);

// Rows [p0, p0 + kc) of a strip of nr columns from explicit stride-1 pieces (im2col.hpp): row p is
// (channel p / taps, tap p % taps), channel c's floats at x + c * channel_stride, each row +0 but
// for its tap's pieces. The portable filler; im2col_fill_pieces_f32__avx2 is its AVX2 twin (nr 16).
void im2col_fill_pieces_f32(const float* x, std::size_t channel_stride, std::size_t taps, std::size_t p0,
                            std::size_t kc, const Im2colPiece* pieces, const std::size_t* first, std::size_t nr,
                            float* out) noexcept;

}  // namespace onemodel::opt
