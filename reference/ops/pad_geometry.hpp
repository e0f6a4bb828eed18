// Pad's geometry (spec/ops/shape-indexing.md section 4), shared by the reference kernel
// (reference/ops/op_pad.cpp) and the optimized override (optimized/ops/op_pad.cpp), so the modes'
// coordinate rules and the pads' checks are written once.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::shape_ops {

enum class PadMode { Constant, Edge, Reflect, Wrap };

inline std::int64_t positive_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// The part of an axis of extent n that a wrap repeats: negative pads crop [crop_begin, n - crop_end)
// first (spec/ops/shape-indexing.md section 4, from ONNX Runtime 1.31.1).
// A negative pad's crop, at most n + 1 (pads come from the file: -INT64_MIN would overflow, and any
// crop beyond n leaves nothing either way).
inline std::int64_t wrap_crop(std::int64_t pad, std::int64_t n) { return pad >= 0 ? 0 : (pad < -n ? n + 1 : -pad); }
inline std::int64_t wrap_kept(std::int64_t n, std::int64_t begin, std::int64_t end) {
  return n - wrap_crop(begin, n) - wrap_crop(end, n);
}

// The input coordinate an output coordinate reads on one axis of extent n with pads begin and
// end, or -1 for the fill value (constant mode). `i` is the output coordinate minus the begin pad.
inline std::int64_t source_coordinate(PadMode mode, std::int64_t i, std::int64_t n, std::int64_t begin, std::int64_t end) {
  if (mode == PadMode::Wrap) {
    // Period = the kept extent m (> 0 whenever an element is read: infer refuses the rest); the
    // kept part starts at crop_begin. With no negative pad this is i mod n.
    const std::int64_t crop_begin = wrap_crop(begin, n);
    const std::int64_t kept = wrap_kept(n, begin, end);
    return kept <= 0 ? -1 : crop_begin + positive_mod(i - crop_begin, kept);
  }
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return i < 0 ? 0 : n - 1;
    case PadMode::Wrap: return -1;  // handled above
    case PadMode::Reflect: {
      if (n == 1) return 0;
      const std::int64_t period = 2 * (n - 1);
      const std::int64_t j = positive_mod(i, period);
      return j < n ? j : period - j;
    }
  }
  return -1;
}

// Pads per axis of the data (rank <= kMaxRank for every tensor): fixed arrays, so resolving
// them allocates nothing (a warm run of the optimized override stays allocation-free).
struct PadSpec {
  std::array<std::int64_t, kMaxRank> begin{}, end{};
};

// `axes` is nullptr when the node has none (every axis, in order).
inline PadSpec resolve_pads(const NodeInfo& node, int rank, std::span<const std::int64_t> pads,
                            const std::span<const std::int64_t>* axes) {
  PadSpec spec;
  std::array<int, kMaxRank> listed{};
  std::size_t k = 0;
  if (axes != nullptr) {
    std::array<bool, kMaxRank> seen{};
    // At most `rank` distinct axes: a further one is a repeat and fails before it is stored.
    for (std::int64_t a : *axes) {
      const int axis = normalize_axis(node, a, rank);
      if (seen[static_cast<std::size_t>(axis)]) node.fail_invalid("axis listed twice");
      seen[static_cast<std::size_t>(axis)] = true;
      listed[k++] = axis;
    }
  } else {
    for (int d = 0; d < rank; ++d) listed[k++] = d;
  }
  if (pads.size() != 2 * k) node.fail_invalid("pads has " + std::to_string(pads.size()) + " entries, expected " + std::to_string(2 * k));
  for (std::size_t i = 0; i < k; ++i) {
    spec.begin[static_cast<std::size_t>(listed[i])] = pads[i];
    spec.end[static_cast<std::size_t>(listed[i])] = pads[k + i];
  }
  return spec;
}

// The `mode` attribute (wrap from opset 19).
inline PadMode parse_mode(const NodeInfo& node) {
  const std::string mode = node.get_string("mode", "constant");
  if (mode == "constant") return PadMode::Constant;
  if (mode == "edge") return PadMode::Edge;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "wrap" && node.opset() >= 19) return PadMode::Wrap;
  node.fail_invalid("mode '" + mode + "'");
}

}  // namespace onemodel::shape_ops
