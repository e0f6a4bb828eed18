// Reading the spectral operators' scalar inputs and `output_datatype` (spec/ops/spectral.md
// section 1), shared by DFT, STFT, the window generators and MelWeightMatrix.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/node_info.hpp"
#include "onemodel/tensor.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::spectral {

// An int32 or int64 tensor of one element; anything else is InvalidModel naming `what`.
inline std::int64_t int_scalar(const NodeInfo& node, const Tensor& t, const char* what) {
  if (t.element_count() != 1) node.fail_invalid(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  return shape_ops::read_ints(node, t, what)[0];
}

// output_datatype (default 1 = float): float, double, float16 and bfloat16 are served.
inline DType output_datatype(const NodeInfo& node) {
  const std::int64_t code = node.get_int("output_datatype", 1);
  switch (code) {
    case 1: return DType::F32;
    case 11: return DType::F64;
    case 10: return DType::F16;
    case 16: return DType::BF16;
    default: break;
  }
  node.fail_unsupported("output_datatype " + std::to_string(code) + " (float, double, float16 and bfloat16 are served)");
}

}  // namespace onemodel::spectral
