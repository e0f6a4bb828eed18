// The throwing forms of core/tensor/checked_math.hpp for kernels: integer arithmetic on
// attributes, input values and extents that either gives the exact result or raises
// SessionError(Unsupported) naming the node and what was computed (spec/operator-contract.md
// section 6: an overflowing size is a typed error, never a wrapped result).
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/node_info.hpp"
#include "core/tensor/checked_math.hpp"

namespace onemodel::node_math {

[[noreturn]] inline void fail_overflow(const NodeInfo& node, const char* what) {
  node.fail_unsupported(std::string(what) + " overflows 64-bit integers (beyond the library's limits)");
}

inline std::int64_t add(const NodeInfo& node, std::int64_t a, std::int64_t b, const char* what) {
  const auto r = detail::checked_add(a, b);
  if (!r) fail_overflow(node, what);
  return *r;
}

inline std::int64_t sub(const NodeInfo& node, std::int64_t a, std::int64_t b, const char* what) {
  const auto r = detail::checked_sub(a, b);
  if (!r) fail_overflow(node, what);
  return *r;
}

inline std::int64_t mul(const NodeInfo& node, std::int64_t a, std::int64_t b, const char* what) {
  const auto r = detail::checked_mul(a, b);
  if (!r) fail_overflow(node, what);
  return *r;
}

}  // namespace onemodel::node_math
