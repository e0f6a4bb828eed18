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

// A GRAPH attribute holding `graph` (a subgraph body, GraphBuilder::body()).
IrAttribute attr_graph(const std::string& name, IrGraph graph);

Tensor float_tensor(const Shape& shape, const std::vector<float>& values);
Tensor int64_tensor(const Shape& shape, const std::vector<std::int64_t>& values);
Tensor bool_tensor(const Shape& shape, const std::vector<std::uint8_t>& values);
// A float64 tensor (the float64 operator cases, e.g. hyperbolic64_bits).
Tensor double_tensor(const Shape& shape, const std::vector<double>& values);

class GraphBuilder {
 public:
  // Every node is imported at `opset` of the default domain.
  // Fresh value names are `prefix` and a counter: a body's builder takes its own prefix so that its
  // names never shadow the enclosing graph's.
  explicit GraphBuilder(std::int64_t opset = 23, std::string prefix = "t");

  // A graph input named `name`, typed and shaped like `value`, fed `value` at run time.
  std::string input(const std::string& name, Tensor value);
  // A constant of the model (an initializer) holding `value`'s elements.
  std::string constant(const std::string& name, const Tensor& value);
  // A node of `op` reading `inputs` ("" is an omitted optional input). Returns its first output,
  // named `output` or, when empty, a fresh name.
  std::string node(const std::string& op, std::vector<std::string> inputs, std::vector<IrAttribute> attributes = {},
                   const std::string& output = {});
  // The same with several outputs, named `outputs` ("" is an omitted output).
  void node_outputs(const std::string& op, std::vector<std::string> inputs, std::vector<IrAttribute> attributes,
                    std::vector<std::string> outputs);
  // Marks `value` as a graph output of element type `elem_type` (ONNX code, 1 = float).
  void output(const std::string& value, std::int32_t elem_type = 1);

  // Subgraph bodies (If, Loop, Scan): a declared input fed by the node holding the body, of
  // `elem_type` and `rank` (-1: unknown rank).
  std::string body_input(const std::string& name, std::int32_t elem_type, int rank = -1);
  // The graph as it stands, unresolved, to be held by a node's attribute (resolution of the main
  // graph resolves it with its captures).
  IrGraph body() const { return graph_.model.graph; }

  // Resolves the model (core/ir/resolve.hpp) and hands it over with the feeds.
  GoldenGraph finish();

 private:
  std::string fresh_name();

  GoldenGraph graph_;
  std::string prefix_;
  int counter_ = 0;
};

}  // namespace onemodel::golden
