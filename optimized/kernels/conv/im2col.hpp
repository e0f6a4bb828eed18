// im2col and col2im (kernels-gemm.md "Convolution"; Chellapilla, Puri and Simard 2006): the
// data movement that turns a grouped 2-D convolution into a matrix product and a transposed
// convolution's matrix product back into an image. Only data moves in im2col; col2im adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"

namespace onemodel::opt {

// Rows [row_begin, row_end) of the (Cin/G*KH*KW) x (OutH*OutW) im2col matrix of one image and
// group: row (c*KH + ky)*KW + kx, column oy*OutW + ox holds input (c, oy*sh - pt + ky*dh,
// ox*sw - pl + kx*dw), or +0 where that lies in the padding (exact-mode.md "Convolution": padding
// taps are real products with +0). `x_group` is the group's first input channel of the image;
// `col` is the matrix (row stride OutH*OutW).
void im2col_rows_f32(const Conv2dShape& shape, const float* x_group, std::size_t row_begin, std::size_t row_end,
                     float* col) noexcept;

// Columns [col, col + valid) of rows [p0, p0 + kc) of the same matrix, written as one strip of a
// packed B: element (p, j) at out[(p - p0) * nr + (j - col)], columns [valid, nr) +0 (the matrix
// product's BStripSource, so the matrix is never stored whole). Same values as im2col_rows_f32.
void im2col_strip_f32(const Conv2dShape& shape, const float* x_group, std::size_t p0, std::size_t kc, std::size_t col,
                      std::size_t valid, std::size_t nr, float* out) noexcept;

// One tap (ky, kx) of a strip: the input offset (y0, x0) of output (0, 0) and the output rows
// [oy_first, oy_past) and columns [ox_first, ox_past) that read inside the input (the others read
// padding, +0). The same for every channel.
struct Im2colTap {
  std::ptrdiff_t y0, x0, oy_first, oy_past, ox_first, ox_past;
};
Im2colTap im2col_tap(const Conv2dShape& shape, std::size_t ky, std::size_t kx) noexcept;

using Im2colStripFn = void (*)(const Conv2dShape& shape, const float* x_group, std::size_t p0, std::size_t kc,
                               std::size_t col, std::size_t valid, std::size_t nr, float* out);

// The vector strip fillers' plan of a strip (im2col_strip_f32__avx512, __avx2): a strip of at most
// 32 columns touches only a few output rows, so each of its rows is a zeroed line plus one short
// copy per output row the strip crosses. Which copies a row makes depends on its tap only, not on
// its channel, so they are found once per strip and each row then runs its tap's list without a
// branch on the geometry. A piece: output columns [at, at + len) of the strip's line come from the
// channel plane at src, src + stride_w, ... (src an offset inside the plane); bit j of `lanes` is
// set for the columns j it fills.
struct Im2colPiece {
  std::ptrdiff_t src, at, len;
  std::uint32_t lanes;
};
inline constexpr std::size_t kIm2colMaxPieces = 256;
inline constexpr std::size_t kIm2colMaxTaps = 64;
// The pieces of every tap of the strip of columns [col, col + valid), valid <= 32, tap t's at
// pieces[first[t], first[t + 1]) (pieces: kIm2colMaxPieces entries, first: taps + 1, taps at most
// kIm2colMaxTaps); false when there are more than kIm2colMaxPieces (a map a few columns wide with
// a large kernel: the generic filler takes it).
bool im2col_strip_pieces(const Conv2dShape& shape, std::size_t col, std::size_t valid, Im2colPiece* pieces,
                         std::size_t* first) noexcept;
// Whether every piece of each tap reads the plane at the same offset from its lanes (src - at
// equal: stride 1 with the input as wide as the output, the usual "same" padding): then the tap's
// row is one masked load a vector from plane + offsets[tap], lanes masks[tap] (the others +0).
bool im2col_contiguous_taps(std::size_t taps, const Im2colPiece* pieces, const std::size_t* first,
                            std::ptrdiff_t* offsets, std::uint32_t* masks) noexcept;

#if defined(__x86_64__)
// im2col_strip_f32 with masked AVX-512 copies of the short row segments (stride-1 columns, strips
// of 32): the same floats, moved without the per-segment library calls that dominated the fill.
// Other shapes go to im2col_strip_f32.
void im2col_strip_f32__avx512(const Conv2dShape& shape, const float* x_group, std::size_t p0, std::size_t kc,
                              std::size_t col, std::size_t valid, std::size_t nr, float* out) noexcept;
// The same with AVX's masked loads for strips of 16 at stride 1 (the AVX2 product's NR); other
// shapes go to im2col_strip_f32.
void im2col_strip_f32__avx2(const Conv2dShape& shape, const float* x_group, std::size_t p0, std::size_t kc,
                            std::size_t col, std::size_t valid, std::size_t nr, float* out) noexcept;
// A strip of 16 from explicit stride-1 pieces (conv_phase_split.hpp, im2col_fill_pieces_f32), by
// the same masked loads: one masked line a row where the tap's pieces are contiguous.
void im2col_fill_pieces_f32__avx2(const float* x, std::size_t channel_stride, std::size_t taps, std::size_t p0,
                                  std::size_t kc, const Im2colPiece* pieces, const std::size_t* first,
                                  float* out) noexcept;
#endif
// One strip filler of the family (kernel_registry.hpp), from im2col_list.inc.
struct Im2colVariant {
  std::string_view name;
  Isa isa;
  Im2colStripFn strip;
};

// The registry: every filler this build has, best first, scalar last; dispatch and the kernel
// tests read it.
std::span<const Im2colVariant> im2col_variants() noexcept;

// The strip filler of a path, the first listed one allowed there: im2col_strip_f32__avx512 on the
// AVX-512 path, im2col_strip_f32__avx2 on the AVX2 path, else im2col_strip_f32.
Im2colStripFn im2col_strip_for(Isa isa) noexcept;

// One output plane of a transposed convolution from its KH*KW rows of the column matrix
// (spec/ops/products-conv.md section 7): the shape's in_* are the transposed convolution's input
// (the columns, in_h*in_w of them), out_* its output. Every output starts at +0 and adds, in
// increasing tap order, the column value of the one input position whose tap lands on it
// (o = i*s - pad + t*d); then the bias when given (one rounded addition), and exact mode stores
// canonical NaN.
void col2im_plane_f32(const Conv2dShape& shape, const float* col, const float* bias, bool exact, float* out) noexcept;

}  // namespace onemodel::opt
