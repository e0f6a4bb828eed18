// Pieces shared by the operator-level differential tests (tests/unit/diff_*_test.cpp): float32
// tensors from values, element counts, and the bitwise comparison of an override with the
// reference kernel in both modes, on every instruction-set path of this machine at 1 and 2
// threads, with a tally of what each case really compared. Header-only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "diff/counterexample.hpp"
#include "diff/op_harness.hpp"

namespace onemodel::diff::test_helpers {

inline Tensor f32_tensor(const Shape& shape, const std::vector<float>& values) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(values));
}

inline Tensor f32_tensor(const std::vector<std::int64_t>& dims, const std::vector<float>& values) {
  return f32_tensor(Shape(std::span<const std::int64_t>(dims)), values);
}

inline std::int64_t count_of(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

// The reference's outputs in both modes against the optimized engine's kernel on every path at 1
// and 2 threads (the work forced onto both, see run_optimized); the first difference, empty when
// none, named by its mode. Exact mode goes through check_everywhere (which saves a differing case
// as a counterexample), fast mode is compared here. `tally`, when given, gets the case added: a
// test requires the counts of override, fallback and shared cases it expects.
inline std::string compare_everywhere(const OpCase& c, CaseTally* tally = nullptr) {
  RunTally runs;
  if (std::string d = check_everywhere(c, "diff-" + c.op, &runs); !d.empty()) return c.op + " exact " + d;
  const auto want = run_reference(c, ExecutionMode::Fast);
  for (opt::Isa isa : opt::available_isas()) {
    for (int threads : {1, 2}) {
      OptimizedRun run;
      const std::string d = first_difference(want, run_optimized(c, ExecutionMode::Fast, isa, threads, &run));
      if (!d.empty()) return c.op + " fast " + std::string(opt::isa_name(isa)) + " threads " + std::to_string(threads) + ": " + d;
      runs.add(run, threads);
    }
  }
  if (tally != nullptr) tally->add(runs);
  return {};
}

}  // namespace onemodel::diff::test_helpers
