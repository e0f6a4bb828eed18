// The window generators HannWindow, HammingWindow, BlackmanWindow (opset 17; spec/ops/spectral.md
// section 3): `size` (an int32 or int64 scalar) samples of the window in `output_datatype`
// (default float32; float32, float64, float16 and bfloat16 are served).
#pragma once

#include <memory>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/spectral_math.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_spectral_window(const NodeInfo& node, spectral::WindowKind kind);

}  // namespace onemodel
