// The blocked layouts of weights and bias (nchwc.hpp): plain copies, zeros past the channels.
#include <algorithm>

#include "optimized/kernels/nchwc/nchwc.hpp"

namespace onemodel::opt::nchwc {

std::vector<float> pack_pointwise(const float* w, std::size_t out_channels, std::size_t in_channels) {
  const std::size_t pairs = (blocks_of(out_channels) + 1) / 2;
  std::vector<float> packed(pairs * in_channels * 2 * kBlock, 0.0f);
  for (std::size_t co = 0; co < out_channels; ++co) {
    // Pair co / 32, then input channel, then the pair's block (co / 16) % 2, then the lane.
    float* at = packed.data() + (co / (2 * kBlock)) * in_channels * 2 * kBlock + ((co / kBlock) % 2) * kBlock + co % kBlock;
    for (std::size_t ci = 0; ci < in_channels; ++ci) at[ci * 2 * kBlock] = w[co * in_channels + ci];
  }
  return packed;
}

std::vector<float> pack_bias(const float* bias, std::size_t out_channels) {
  std::vector<float> packed(blocks_of(out_channels) * kBlock, 0.0f);
  if (bias != nullptr) std::copy(bias, bias + out_channels, packed.begin());
  return packed;
}

std::vector<float> pack_depthwise(const float* w, std::size_t channels, std::size_t taps) {
  std::vector<float> packed(blocks_of(channels) * taps * kBlock, 0.0f);
  for (std::size_t c = 0; c < channels; ++c) {
    float* block = packed.data() + (c / kBlock) * taps * kBlock + c % kBlock;
    for (std::size_t t = 0; t < taps; ++t) block[t * kBlock] = w[c * taps + t];
  }
  return packed;
}

}  // namespace onemodel::opt::nchwc
