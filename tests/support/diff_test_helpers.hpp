// Pieces shared by the operator-level differential tests (tests/unit/diff_*_test.cpp): float32
// tensors from values, element counts, and the bitwise comparison of an override with the
// reference kernel in both modes, on every instruction-set path of this machine at 1 and 2
// threads, with a tally of what each case really compared. Header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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
//
// `fast_ulp` > 0: an operator whose fast-mode function is not the reference's (the fast sigmoid,
// docs/design.md "Fast-mode sigmoid") is compared in fast mode within that many ulp of the
// reference's float32 outputs (NaN against NaN, infinities and zeros exactly), and its fast
// results at 1 and 2 threads must still be the same bits.
inline std::string within_ulp(const std::vector<Tensor>& want, const std::vector<Tensor>& got, double ulp) {
  if (want.size() != got.size()) return "output count differs";
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (want[k].dtype() != DType::F32 || got[k].dtype() != DType::F32 || want[k].shape() != got[k].shape()) {
      return first_difference(want, got);
    }
    const auto w = want[k].contiguous().data<float>();
    const auto g = got[k].contiguous().data<float>();
    for (std::size_t i = 0; i < w.size(); ++i) {
      const float a = w[i], b = g[i];
      if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b) || a == 0.0f || b == 0.0f) {
        std::uint32_t ua, ub;
        std::memcpy(&ua, &a, sizeof ua);
        std::memcpy(&ub, &b, sizeof ub);
        if (ua != ub) return "output " + std::to_string(k) + ": element " + std::to_string(i) + " special value differs";
        continue;
      }
      const double spacing = std::ldexp(1.0, std::max(std::ilogb(a), -126) - 23);
      if (std::fabs(static_cast<double>(a) - static_cast<double>(b)) > ulp * spacing) {
        return "output " + std::to_string(k) + ": element " + std::to_string(i) + " beyond " + std::to_string(ulp) +
               " ulp (" + std::to_string(a) + " vs " + std::to_string(b) + ")";
      }
    }
  }
  return {};
}

inline std::string compare_everywhere(const OpCase& c, CaseTally* tally = nullptr, double fast_ulp = 0.0) {
  RunTally runs;
  if (std::string d = check_everywhere(c, "diff-" + c.op, &runs); !d.empty()) return c.op + " exact " + d;
  const auto want = run_reference(c, ExecutionMode::Fast);
  for (opt::Isa isa : opt::available_isas()) {
    std::vector<Tensor> one_thread;
    for (int threads : {1, 2}) {
      OptimizedRun run;
      std::vector<Tensor> got = run_optimized(c, ExecutionMode::Fast, isa, threads, &run);
      std::string d;
      if (fast_ulp > 0.0) {
        d = within_ulp(want, got, fast_ulp);
        if (d.empty() && threads == 1) one_thread = got;
        if (d.empty() && threads != 1) d = first_difference(one_thread, got);
      } else {
        d = first_difference(want, got);
      }
      if (!d.empty()) return c.op + " fast " + std::string(opt::isa_name(isa)) + " threads " + std::to_string(threads) + ": " + d;
      runs.add(run, threads);
    }
  }
  if (tally != nullptr) tally->add(runs);
  return {};
}

}  // namespace onemodel::diff::test_helpers
