// Hand-built multi-node models for tests of the engines: inputs with fixed shapes, initializers
// from tensors, nodes in any order, outputs; build() resolves the graph as the importer does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::graph_builder {

// A tensor as a graph holds it (an initializer, a tensor attribute): its bytes copied into storage
// the IrTensor owns, in row-major order whatever the strides of `value`.
IrTensor ir_tensor_of(const std::string& name, const Tensor& value);

class GraphBuilder {
 public:
  explicit GraphBuilder(std::int64_t opset = 17) : opset_(opset) {}

  GraphBuilder& input(const std::string& name, DType type, const Shape& shape);
  // An input of any shape (rank and extents unknown).
  GraphBuilder& input_any_shape(const std::string& name, DType type);
  GraphBuilder& initializer(const std::string& name, const Tensor& value);
  GraphBuilder& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                     std::vector<IrAttribute> attributes = {});
  // A graph output with the element type only (shape unknown).
  GraphBuilder& output(const std::string& name, DType type);

  IrModel build() const;

 private:
  std::int64_t opset_;
  IrGraph graph_;
};

}  // namespace onemodel::graph_builder
