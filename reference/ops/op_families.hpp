// The rows of the operator table, one function per family (reference/ops/table_<family>.cpp).
#pragma once

#include <span>

#include "core/graph/op_kernel.hpp"

namespace onemodel {

std::span<const OpDef> elementwise_ops();  // spec/ops/elementwise.md
std::span<const OpDef> norm_ops();         // spec/ops/norms.md
std::span<const OpDef> shape_ops();        // spec/ops/shape-indexing.md
std::span<const OpDef> conv_ops();         // spec/ops/products-conv.md
std::span<const OpDef> recurrent_ops();    // spec/ops/recurrent.md
std::span<const OpDef> attention_ops();    // spec/ops/attention.md
std::span<const OpDef> loss_ops();         // spec/ops/losses.md
std::span<const OpDef> quant_ops();        // spec/ops/quantization.md
std::span<const OpDef> control_ops();      // spec/ops/control-flow.md
std::span<const OpDef> spectral_ops();     // spec/ops/spectral.md
std::span<const OpDef> training_ops();     // spec/ops/training.md
std::span<const OpDef> ml_ops();           // spec/ops/ml.md
std::span<const OpDef> image_ops();        // spec/ops/image.md
std::span<const OpDef> string_ops();       // spec/ops/strings.md
std::span<const OpDef> random_ops();       // spec/ops/random.md

}  // namespace onemodel
