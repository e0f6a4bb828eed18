// What a session runs: an engine made once from the model, shared by concurrent runs.
// Internal (spec/session.md section 1).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <unordered_map>

#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

// Inputs by name, already validated against the model's declarations and contiguous.
using NamedTensors = std::unordered_map<std::string, Tensor>;

class Engine {
 public:
  virtual ~Engine() = default;
  // Fills outputs[i] with a new tensor holding output_names[i]. Thread-safe.
  virtual void run(const NamedTensors& inputs, std::span<const std::string> output_names,
                   std::span<Tensor> outputs) const = 0;
  virtual std::string kernel_path() const = 0;
};

// reference/engine: topological order, a fresh buffer per value, no passes, one thread.
std::unique_ptr<Engine> make_reference_engine(const IrModel& model, const SessionOptions& options);

}  // namespace onemodel
