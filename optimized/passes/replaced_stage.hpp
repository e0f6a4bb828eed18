// Running one node a fused node replaced, when the fused kernel falls back to the original
// chain (graph-runtime.md section 6: a fused node keeps the replaced nodes' kernels). Shared by
// LinearOp and the fused attention node so the fallback states and runs a stage one way.
#pragma once

#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"

namespace onemodel::opt {

// The stage's output: the fused node's own output for the last stage, otherwise a value the
// stage's infer() states as constant (no run needed) or run-scratch of the stated type and shape.
inline Tensor run_replaced_stage(const NodeInfo& info, const OpKernel& kernel, const std::vector<Tensor>& inputs,
                                 RunContext& context, bool last) {
  std::vector<Tensor> outputs(1);
  if (last) {
    outputs[0] = context.output(0);
  } else {
    std::vector<InferInput> described(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].defined()) described[i] = InferInput{true, inputs[i].dtype(), inputs[i].shape(), &inputs[i]};
    }
    std::vector<InferOutput> stated(1);
    stated[0].wanted = true;
    InferContext sub(info, described, stated);
    kernel.infer(sub);
    if (stated[0].constant) return stated[0].value;
    outputs[0] = context.scratch(stated[0].type, stated[0].shape);
  }
  RunContext sub(info, inputs, outputs, nullptr, nullptr);
  kernel.run(sub);
  return outputs[0];
}

}  // namespace onemodel::opt
