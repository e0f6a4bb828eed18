// The logical shapes of the channel-blocked values (optimized/kernels/nchwc/nchwc.hpp) the
// `nchwc-layout` nodes read and state (nchwc_conv_op.hpp, nchwc_se_ops.hpp).
#pragma once

#include <string>

#include "onemodel/session_error.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt::nchwc {

// [N, C, H, W] of a blocked [N, ceil(C / 16), H, W, 16] holding `channels` channels; throws
// `kind` naming the node when the shape is not such a tensor.
inline Shape logical_of_blocked(const NodeInfo& node, const Shape& blocked, std::size_t channels,
                                SessionErrorKind kind) {
  if (blocked.rank() != 5 || blocked[4] != static_cast<std::int32_t>(kBlock) ||
      static_cast<std::size_t>(blocked[1]) != blocks_of(channels)) {
    throw SessionError(kind,
                       "a channel-blocked value of shape " + blocked.to_string() + " does not hold " +
                           std::to_string(channels) + " channels in blocks of 16",
                       node.name());
  }
  return Shape{blocked[0], static_cast<std::int64_t>(channels), blocked[2], blocked[3]};
}

// The blocked shape of a logical [N, C, H, W].
inline Shape blocked_of_logical(const Shape& logical) {
  return Shape{logical[0], static_cast<std::int64_t>(blocks_of(static_cast<std::size_t>(logical[1]))), logical[2],
               logical[3], static_cast<std::int64_t>(kBlock)};
}

}  // namespace onemodel::opt::nchwc
