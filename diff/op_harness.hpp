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

// What one optimized run did, so a test can tell what it compared.
struct OptimizedRun {
  // An override served the node without handing it to its reference kernel. False for a
  // fallback (the reference kernel compared with itself) and for an operator with no override.
  bool override_ran = false;
  // parallel_for calls whose chunks at least two threads ran (0 at 1 thread).
  std::uint64_t shared_calls = 0;
};

// The runs of one case (modes, paths, thread counts) summed.
struct RunTally {
  std::size_t runs = 0;
  std::size_t override_runs = 0;    // runs the override served (OptimizedRun::override_ran)
  std::size_t two_thread_runs = 0;  // runs at two or more threads
  std::size_t shared_runs = 0;      // of those, runs with at least one shared call
  void add(const OptimizedRun& run, int threads);
  void add(const RunTally& other);
};

// What a test compared over its cases: a case is an override case when every run of it ran the
// override, a fallback case when none did (the reference kernel compared with itself), and a
// shared case when one of its multi-thread runs had its work split between two threads. A test
// requires the counts it expects, so a fallback cannot pass as an override test and a case too
// small to split cannot pass as a thread test.
struct CaseTally {
  std::size_t cases = 0;
  std::size_t override_cases = 0;
  std::size_t fallback_cases = 0;
  std::size_t shared_cases = 0;
  void add(const RunTally& runs);
  std::string summary() const;
};

// Runs the node's reference kernel.
std::vector<Tensor> run_reference(const OpCase& c, ExecutionMode mode);
// Runs the optimized engine's kernel for the node on `isa` with a pool of `threads`. At two or
// more threads the pool shares every call of two or more chunks (ThreadPool::Sharing::Always),
// however small its estimate, so the thread comparison sees the work really split; `run`, when
// given, says whether the override ran and how many calls were shared.
std::vector<Tensor> run_optimized(const OpCase& c, ExecutionMode mode, opt::Isa isa, int threads,
                                  OptimizedRun* run = nullptr);
// Whether the optimized engine overrides the operator at this opset.
bool has_override(const std::string& op, std::int64_t opset);

// Empty when a and b have the same element types, shapes and bytes; else the first difference.
std::string first_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// SHA-256 (hex) over the outputs as golden-hashes.md hashes one output: element type code, rank
// and extents as little-endian 64-bit integers, then the elements row-major.
std::string tensor_hash(const Tensor& t);

}  // namespace onemodel::diff
