// The epilogue every im2col convolution product runs on its finished tiles (conv2d.cpp,
// conv2d_regions.cpp): the bias as the reference adds it (spec/ops/products-conv.md section 6:
// after the whole sum, one rounded addition per output, canonical NaN in exact mode), then the
// fused activation when there is one (graph-passes.md `conv-activation`): the activation
// operator's own element-wise kernel on the finished values, row by row of the tile. Rows of C
// are output channels of one group.
#pragma once

#include <cstddef>

#include "optimized/frame/canonical_nan.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/conv/conv_bias_rows.hpp"

namespace onemodel::opt {

struct ConvBiasState {
  const float* bias = nullptr;  // the group's first channel, or nullptr
  bool exact = false;
  const ConvActivation* activation = nullptr;
  Isa isa = Isa::Scalar;
  std::size_t channel0 = 0;  // the group's first output channel (a fused normalization's index)
  // Where C's rows sit in the Conv's output y, for a fused residual read at the same positions:
  // C's element (r, j) is y[first + r * plane + j]. Only meaningful when C is laid out like y
  // (conv2d.cpp); the tap-region path never carries a residual (op_conv.cpp prepare()).
  std::size_t first = 0;
  std::size_t plane = 0;
};

// The activation (with its normalization and residual) on rows [row, row + rows) of C, `cols`
// columns each. Where those rows lie back to back (a tile as wide as the output plane: the 7 x 7
// maps of a network's last stage) and nothing depends on the channel (no normalization), one call
// covers them all: an element's value never depends on where in a call it falls (the lanes of a
// tail run the body's code), and 1152 calls of 49 values had cost more than their arithmetic
// (about 20 ns each, EfficientNet-B0's 7 x 7 1x1 convolutions).
inline void activate_rows(const ConvBiasState& b, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col,
                          std::size_t rows, std::size_t cols) {
  const ConvActivation& activation = *b.activation;
  const bool back_to_back = ldc >= 0 && static_cast<std::size_t>(ldc) == cols;
  const bool residual_back_to_back = activation.residual == nullptr || (b.plane == cols && col == 0);
  if (rows > 1 && back_to_back && residual_back_to_back && activation.norm_scale == nullptr) {
    apply_conv_activation(b.isa, activation, b.channel0 + row, c, rows * cols, b.first + row * b.plane + col);
    return;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    apply_conv_activation(b.isa, activation, b.channel0 + row + r, line, cols, b.first + (row + r) * b.plane + col);
  }
}

// GemmEpilogue::apply for a ConvBiasState: rows [row, row + rows) of C, `cols` columns each.
inline void conv_bias_epilogue(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col,
                               std::size_t rows, std::size_t cols) {
  const ConvBiasState& b = *static_cast<const ConvBiasState*>(state);
#if defined(__x86_64__)
  if ((b.isa == Isa::Avx512 || b.isa == Isa::Avx2) && b.bias != nullptr) {
    const bool avx512 = b.isa == Isa::Avx512;
    if (activation_fuses_in_store(b.activation)) {
      // One pass for the bias, the residual Add and the activation (conv_bias_rows.hpp): the three
      // steps' bits, each value read and written once instead of three times (a tenth of a
      // 16 -> 64 1x1 convolution at 112 x 112 went to each separate pass).
      const float* residual = b.activation->residual != nullptr ? b.activation->residual + b.first + row * b.plane + col
                                                                : nullptr;
      (avx512 ? conv_bias_residual_activation_rows__avx512 : conv_bias_residual_activation_rows__avx2)(
          c, ldc, b.bias + row, residual, b.plane, rows, cols, *b.activation);
      return;
    }
    (avx512 ? conv_bias_rows__avx512 : conv_bias_rows__avx2)(c, ldc, b.bias + row, rows, cols, b.exact);
    if (b.activation != nullptr) activate_rows(b, c, ldc, row, col, rows, cols);
    return;
  }
#endif
  if (b.bias != nullptr) {
    for (std::size_t r = 0; r < rows; ++r) {
      float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
      const float v = b.bias[row + r];
      if (b.exact) {
        for (std::size_t j = 0; j < cols; ++j) line[j] = canonical_nan(line[j] + v);
      } else {
        for (std::size_t j = 0; j < cols; ++j) line[j] = line[j] + v;
      }
    }
  }
  if (b.activation != nullptr) activate_rows(b, c, ldc, row, col, rows, cols);
}

// GemmEpilogue::prefetch for a ConvBiasState: the residual positions of the tile, one request per
// 64-byte line, to every cache level (a request for the second level only gained about half as
// much). A residual Add reads a tensor written several layers earlier; in ResNet-50 the weights
// streamed since had pushed it out of the caches, and the epilogue read it row by row (a tile row
// is 128 values), each row a short stream the hardware prefetcher did not pick up.
inline void conv_epilogue_prefetch(const void* state, std::size_t row, std::size_t col, std::size_t rows,
                                   std::size_t cols) {
  const ConvBiasState& b = *static_cast<const ConvBiasState*>(state);
  if (b.activation == nullptr || b.activation->residual == nullptr) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const char* line = reinterpret_cast<const char*>(b.activation->residual + b.first + (row + r) * b.plane + col);
    for (std::size_t offset = 0; offset < cols * sizeof(float); offset += 64) __builtin_prefetch(line + offset, 0, 3);
  }
}

}  // namespace onemodel::opt
