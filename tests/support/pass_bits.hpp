// What the bit-preserving pass tests share (pass_conv_residual, pass_linear_residual,
// pass_matmul_transpose, pass_self_gate, pass_elementwise_chain): inputs with special values, small
// weights, the compiled graph of a model, and the comparison of the fused graph with the reference
// engine and the unfused optimized graph on every kernel path at 1 and 2 threads. A pass that
// claims to preserve bits (spec/optimized-engine.md section 2) must give, in exact mode, the
// reference engine's bits and the unfused graph's; in fast mode the unfused graph's, at any thread
// count.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel::test::pass_bits {

inline std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline float from_bits(std::uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Mostly values in [-8, 8) (where Sigmoid, HardSigmoid, HardSwish and Clip bend), one in
// `special_every` (0: none) a special value: NaN payloads of both signs, infinities, signed zeros,
// subnormals, huge values, then the test's own `extra` values (corners of its functions).
inline Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every,
                           std::initializer_list<float> extra) {
  std::vector<float> specials = {std::numeric_limits<float>::quiet_NaN(),
                                 from_bits(0xFFC01234u),
                                 from_bits(0x7F800001u),
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 0.0f,
                                 -0.0f,
                                 from_bits(0x00000321u),
                                 -from_bits(0x00654321u),
                                 3.0e38f,
                                 -3.0e38f};
  specials.insert(specials.end(), extra.begin(), extra.end());
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (std::size_t i = 0; i < v.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    if (special_every > 0 && (state >> 8) % static_cast<std::uint32_t>(special_every) == 0) {
      v[i] = specials[(state >> 3) % specials.size()];
    } else {
      v[i] = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 16.0f;
    }
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// Weights in [-0.25, 0.25) without specials, so that a product's sums stay mostly where the
// activations bend.
inline Tensor small_weights(const Shape& shape, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (float& value : v) {
    state = state * 1664525u + 1013904223u;
    value = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.5f;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// The optimized engine's graph of `model` after its passes (scalar path, one thread).
inline std::unique_ptr<opt::CompiledGraph> compiled(const IrModel& model, ExecutionMode mode,
                                                    OptimizationLevel level = OptimizationLevel::All) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  static opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
}

// Nodes left by the passes; they must be as many in both modes (the passes run in both).
inline std::size_t fused_nodes(const IrModel& model) {
  const std::size_t exact = compiled(model, ExecutionMode::Exact)->nodes.size();
  const std::size_t fast = compiled(model, ExecutionMode::Fast)->nodes.size();
  EXPECT_EQ(exact, fast);
  return exact;
}

// The first difference in count, shape or bits between two runs' float32 outputs, or "".
inline std::string difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return "output counts differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i].shape() == b[i].shape())) {
      return "output " + std::to_string(i) + " shape " + a[i].shape().to_string() + " vs " + b[i].shape().to_string();
    }
    const auto x = a[i].to_vector<float>();
    const auto y = b[i].to_vector<float>();
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (bits(x[k]) != bits(y[k])) {
        return "output " + std::to_string(i) + " element " + std::to_string(k) + ": " + std::to_string(bits(x[k])) +
               " vs " + std::to_string(bits(y[k]));
      }
    }
  }
  return "";
}

// See the file comment: the first disagreement found, naming the path and thread count, or "".
// Runs at two threads count toward the calling test's RequireSplit (session_runs.hpp).
inline std::string bits_everywhere(const IrModel& model, const Feeds& feeds) {
  const auto reference = run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  std::string found;
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    const auto fast_unfused =
        run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, 1, feeds);
    const auto fast_one = run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 1, feeds);
    for (int threads : {1, 2}) {
      const std::string where = isa + " threads " + std::to_string(threads);
      const auto exact =
          run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      const auto exact_unfused =
          run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::None, threads, feeds);
      const auto fast =
          run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
      if (std::string d = difference(exact, reference); !d.empty()) found = "exact vs reference, " + where + ": " + d;
      if (std::string d = difference(exact, exact_unfused); !d.empty()) found = "exact vs unfused, " + where + ": " + d;
      if (std::string d = difference(fast, fast_one); !d.empty()) found = "fast at 1 and 2 threads, " + where + ": " + d;
      if (std::string d = difference(fast, fast_unfused); !d.empty()) found = "fast vs unfused, " + where + ": " + d;
      if (!found.empty()) break;
    }
    if (!found.empty()) break;
  }
  ::unsetenv("ONEMODEL_ISA");
  return found;
}

}  // namespace onemodel::test::pass_bits
