// LayerNormalization / RMSNormalization over the rows of a contiguous rows x cols float32 array
// (ops-norms.md, "LayerNormalization, RMSNormalization"): the bits of the reference kernel on every
// path and thread count, in exact and fast mode alike. Rows are processed in chunks of
// max(1, 16384 / cols) rows; a row is never split.
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

struct LayerNormArgs {
  const float* x = nullptr;
  float* y = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  // Row r reads scale[r * scale_row_stride + j] and bias[r * bias_row_stride + j]: a stride of 0
  // shares one row of cols values among all rows; cols gives every row its own (parameters that
  // broadcast to the whole input, spec/ops/norms.md section 3).
  const float* scale = nullptr;  // expanded to the normalized extent
  const float* bias = nullptr;   // as scale, or nullptr: no addition
  std::size_t scale_row_stride = 0;
  std::size_t bias_row_stride = 0;
  // InstanceNormalization (spec/ops/norms.md section 4): when nonzero, scale and bias hold one
  // value per channel and row r (one (sample, channel) plane) uses scale[r % param_channels] and
  // bias[r % param_channels] for all its columns; the row strides are then unused.
  std::size_t param_channels = 0;
  float epsilon = 1e-5f;
  bool rms = false;              // RMSNormalization: mean = +0
  float* mean = nullptr;         // rows values, or nullptr
  float* inv_std_dev = nullptr;  // rows values, or nullptr
};

void layer_norm_f32(const KernelContext& context, const LayerNormArgs& args);

}  // namespace onemodel::opt
