// Comparing an output with its reference (../shared/spec-source/reference-models.md, "Method";
// bench-method.md, "Output check"):
//   scaled error       max|ours - ref| / max|ref|              (the gate, default 1e-4)
//   element-wise error max |ours - ref| / max(|ref|, 1e-6)     (reported, not gated)
//   hash               the first 16 hex digits of the SHA-256 of the output's bytes
// Non-float outputs must match exactly (scaled error 0). NaN against NaN and an infinity against
// the same infinity count as equal; any other difference involving them is an infinite error.
#pragma once

#include <cstdint>
#include <string>

#include "onemodel/tensor.hpp"

namespace onemodel::refdata {

inline constexpr double kDefaultGate = 1e-4;

struct OutputComparison {
  bool comparable = false;       // same dtype and shape; otherwise `problem` says what differs
  std::string problem;
  bool floating = false;         // float32/float64/float16/bfloat16
  double scaled_error = 0.0;     // 0/0 is 0, x/0 is infinity
  double elementwise_error = 0.0;
  std::int64_t differing = 0;    // elements not equal
};

OutputComparison compare_output(const Tensor& ours, const Tensor& reference);

// Comparable, and the scaled error at most `gate` (floats) or exactly 0 (other types).
bool passes_gate(const OutputComparison& comparison, double gate) noexcept;

// The first 16 hex digits of the SHA-256 of the tensor's row-major element bytes.
std::string output_hash16(const Tensor& tensor);

}  // namespace onemodel::refdata
