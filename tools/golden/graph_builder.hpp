// A small builder of multi-node IrModels for the golden graphs. The test suite has its own
// (tests/support/ir_builder.cpp) but it links GoogleTest, which the aarch64 and WebAssembly builds
// do not have, so this tool carries its own. Graph inputs are fed at run time; initializers are
// constants of the model (the optimized engine may prepare them, e.g. pack weights, so both kinds
// are worth covering).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::golden {

// A resolved model and the values to feed its inputs.
struct GoldenGraph {
  IrModel model;
  std::vector<std::pair<std::string, Tensor>> feeds;
};

IrAttribute attr_int(const std::string& name, std::int64_t value);
IrAttribute attr_float(const std::string& name, float value);
IrAttribute attr_ints(const std::string& name, std::vector<std::int64_t> values);
IrAttribute attr_string(const std::string& name, const std::string& value);

Tensor float_tensor(const Shape& shape, const std::vector<float>& values);
Tensor int64_tensor(const Shape& shape, const std::vector<std::int64_t>& values);
Tensor bool_tensor(const Shape& shape, const std::vector<std::uint8_t>& values);

class GraphBuilder {
 public:
  // Every node is imported at `opset` of the default domain.
  explicit GraphBuilder(std::int64_t opset = 23);

  // A graph input named `name`, typed and shaped like `value`, fed `value` at run time.
  std::string input(const std::string& name, Tensor value);
  // A constant of the model (an initializer) holding `value`'s elements.
  std::string constant(const std::string& name, const Tensor& value);
  // A node of `op` reading `inputs` ("" is an omitted optional input). Returns its first output,
  // named `output` or, when empty, a fresh name.
  std::string node(const std::string& op, std::vector<std::string> inputs, std::vector<IrAttribute> attributes = {},
                   const std::string& output = {});
  // Marks `value` as a graph output of element type `elem_type` (ONNX code, 1 = float).
  void output(const std::string& value, std::int32_t elem_type = 1);

  // Resolves the model (core/ir/resolve.hpp) and hands it over with the feeds.
  GoldenGraph finish();

 private:
  std::string fresh_name();

  GoldenGraph graph_;
  int counter_ = 0;
};

}  // namespace onemodel::golden
