// How the two direct stem kernels (conv_stem_avx512.cpp, conv_stem_columns_avx512.cpp) cut their
// work: chunks of whole output rows of one image and group, a function of the shape alone (so no value
// depends on the thread count), and the activation's separate pass over a chunk's outputs where
// the kernel does not apply it in its stores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt::stem_chunks {

struct Chunks {
  std::int64_t rows;       // output rows per chunk
  std::int64_t per_image;  // chunks per image and group
  std::size_t count;       // chunks of the call
  double estimate_ns;      // the call's single-thread cost estimate (how many workers wake)
};

// About 1024 outputs per channel per chunk (one activation call per channel and chunk), and at
// least four chunks per image where the rows allow, so a second thread has a share of a small
// layer too (as the product's tile width keeps eight tiles, gemm.cpp); about 40 multiply-adds per
// nanosecond, as the product's estimate. A grouped convolution with at least eight (image, group)
// pairs keeps each pair's rows in one chunk on maps of at most kWholePlaneOutputs: the pairs
// already give every thread a share, and each chunk copies the rows its windows reach (a 3x3
// window over chunks of 4 rows of a 14 x 14 map had copied half as many rows again; one-node
// layers at 14 x 14 and 28 x 28, session 31: 0.89-0.96x with whole planes). Larger maps keep
// chunks of rows, so a chunk's block (its channels' rows) stays near the second-level cache's size.
inline constexpr std::size_t kWholePlaneOutputs = 4096;

inline Chunks chunks_of(const Conv2dShape& s) noexcept {
  const auto out_h = static_cast<std::int64_t>(s.out_h), out_w = static_cast<std::int64_t>(s.out_w);
  const std::size_t pairs = s.batch * s.groups;
  const bool whole_planes = s.groups > 1 && pairs >= 8 && s.out_plane() <= kWholePlaneOutputs;
  const std::int64_t rows =
      whole_planes ? std::max<std::int64_t>(1, out_h)
                   : std::max<std::int64_t>(1, std::min<std::int64_t>(1024 / out_w, (out_h + 3) / 4));
  const std::int64_t per_image = (out_h + rows - 1) / rows;
  const double estimate =
      static_cast<double>(s.batch * s.out_channels * s.out_plane() * s.in_per_group() * s.taps()) / 40.0;
  return Chunks{rows, per_image, pairs * static_cast<std::size_t>(per_image), estimate};
}

struct Chunk {
  std::size_t image, group;
  std::int64_t oy_first, oy_past;  // output rows [oy_first, oy_past) of the image's group
};

inline Chunk chunk_at(const Chunks& c, const Conv2dShape& s, std::size_t chunk) noexcept {
  const std::size_t pair = chunk / static_cast<std::size_t>(c.per_image);
  const std::int64_t first = static_cast<std::int64_t>(chunk % static_cast<std::size_t>(c.per_image)) * c.rows;
  return Chunk{pair / s.groups, pair % s.groups, first, std::min(static_cast<std::int64_t>(s.out_h), first + c.rows)};
}

// The activation (with its normalization or residual) on the chunk's outputs of every channel of
// its group, through the element-wise kernels (conv_activation_step.hpp).
inline void activate_chunk(Isa isa, const ConvActivation& activation, const Conv2dShape& s, const Chunk& c, float* y) {
  const std::size_t plane = s.out_plane();
  const std::size_t first = static_cast<std::size_t>(c.oy_first) * s.out_w;
  const std::size_t count = static_cast<std::size_t>(c.oy_past - c.oy_first) * s.out_w;
  const std::size_t first_channel = c.group * s.out_per_group();
  for (std::size_t oc = first_channel; oc < first_channel + s.out_per_group(); ++oc) {
    const std::size_t at = (c.image * s.out_channels + oc) * plane + first;
    apply_conv_activation(isa, activation, oc, y + at, count, at);
  }
}

}  // namespace onemodel::opt::stem_chunks
