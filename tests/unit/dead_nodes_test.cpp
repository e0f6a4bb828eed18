// Dead nodes (graph-runtime.md section 3 step 3): a node with no path to a graph output is dropped
// when the session is made, in both engines. Found by the session fuzzer (issue 11): a Gemm whose
// output no graph output reads, with inner extents that differ, was InvalidModel in the reference
// engine and ran in the optimized one; a BERT file whose second attention block no longer reached
// the output (an Unsqueeze with axis 1024 in it) likewise. Both engines must give the same answer,
// and the answer is the outputs: a node that cannot change them cannot refuse the run.
// Regression seeds: fuzz/corpus/session/regress-dead-*.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;

Tensor ones(const Shape& shape) {
  Tensor t = Tensor::empty(DType::F32, shape);
  for (float& v : t.mutable_data<float>()) v = 1.0f;
  return t;
}

// y = Relu(x); a dead Gemm reads x with inner extents 3 and 5 (refused if it were shaped).
IrModel model_with_dead_refusal() {
  GraphBuilder b(13);
  b.input("x", DType::F32, Shape{4, 3})
      .initializer("w", ones(Shape{5, 2}))
      .node("Relu", {"x"}, {"y"})
      .node("Gemm", {"x", "w"}, {"dead"})
      .output("y", DType::F32);
  return b.build();
}

TEST(DeadNodes, ANodeWithNoPathToAnOutputCannotRefuseTheRunInEitherEngine) {
  const IrModel model = model_with_dead_refusal();
  Tensor x = Tensor::empty(DType::F32, Shape{4, 3});
  float k = -6.0f;
  for (float& v : x.mutable_data<float>()) v = k++;
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      SCOPED_TRACE(std::string(engine == EngineKind::Reference ? "reference " : "optimized ") +
                   (mode == ExecutionMode::Exact ? "exact" : "fast"));
      SessionOptions options;
      options.engine = engine;
      options.mode = mode;
      options.intra_op_threads = 1;
      try {
        const auto outputs = Session::create(model, options).run({{"x", x}});
        ASSERT_EQ(outputs.size(), 1u);
        const Tensor& y = outputs[0];
        ASSERT_EQ(y.element_count(), 12);
        // Relu by its definition: max(x, 0), elementwise.
        const auto in = x.data<float>();
        const auto out = y.data<float>();
        for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(out[i], in[i] > 0.0f ? in[i] : 0.0f) << i;
      } catch (const SessionError& e) {
        ADD_FAILURE() << "refused: " << e.what();
      }
    }
  }
}

// The same Gemm on the path to the output is refused by both, as before.
TEST(DeadNodes, TheSameNodeOnThePathToAnOutputIsRefusedByBoth) {
  GraphBuilder b(13);
  b.input("x", DType::F32, Shape{4, 3}).initializer("w", ones(Shape{5, 2})).node("Gemm", {"x", "w"}, {"y"});
  b.output("y", DType::F32);
  const IrModel model = b.build();
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SessionOptions options;
    options.engine = engine;
    options.intra_op_threads = 1;
    try {
      (void)Session::create(model, options).run({{"x", ones(Shape{4, 3})}});
      ADD_FAILURE() << "a Gemm with inner extents 3 and 5 ran";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
    }
  }
}

}  // namespace
}  // namespace onemodel
