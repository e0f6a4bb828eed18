// The differential harness at operator level (DESIGN.md section 1, "Differential gating"): one
// node run through its reference kernel and through the optimized engine's kernel for it (the
// override, or the reference kernel where there is none) on a chosen instruction-set path and
// thread count, without a session, so every path the machine has can be compared in one process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"
#include "optimized/frame/isa.hpp"

namespace onemodel::diff {

struct OpCase {
  std::string op;
  std::int64_t opset = 17;
  std::vector<IrAttribute> attributes;
  std::vector<Tensor> inputs;  // an undefined tensor is an omitted optional input
  // Inputs whose values the kernel may see at plan time (weights): prepare() gets them. Empty:
  // every input after the first is constant.
  std::vector<bool> constant;
  std::size_t outputs = 1;
};

// Runs the node's reference kernel.
std::vector<Tensor> run_reference(const OpCase& c, ExecutionMode mode);
// Runs the optimized engine's kernel for the node on `isa` with a pool of `threads`.
std::vector<Tensor> run_optimized(const OpCase& c, ExecutionMode mode, opt::Isa isa, int threads);
// Whether the optimized engine overrides the operator at this opset.
bool has_override(const std::string& op, std::int64_t opset);

// Empty when a and b have the same element types, shapes and bytes; else the first difference.
std::string first_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// SHA-256 (hex) over the outputs as golden-hashes.md hashes one output: element type code, rank
// and extents as little-endian 64-bit integers, then the elements row-major.
std::string tensor_hash(const Tensor& t);

}  // namespace onemodel::diff
