// The happy path (include/onemodel/session.hpp `Model`, spec/session.md section 6): every form of
// Model::run, and the span form Session::run_span, against Session::run with the tensors the rule
// says they stand for, bit for bit, on the sample models (models/samples/) and on text encoders
// built here. The text encoders read their ids through Gather and then a CumSum along the
// sequence, so ids taken as N one-token sequences [N, 1] instead of one sequence [1, N]
// (reference-models.md "The one-line happy path on a text encoder") give other values.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_bits;
using ir_builder::int_attr;

std::filesystem::path sample(const char* name) {
  return std::filesystem::path(ONEMODEL_SOURCE_DIR) / "models/samples" / name;
}

Tensor f32(const Shape& shape, const std::vector<float>& v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}
Tensor i64(const Shape& shape, const std::vector<std::int64_t>& v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, std::span<const std::int64_t>(v));
}

// The option sets every comparison runs under: both engines, both modes.
std::vector<SessionOptions> option_sets() {
  std::vector<SessionOptions> sets;
  for (EngineKind engine : {EngineKind::Optimized, EngineKind::Reference}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      SessionOptions o;
      o.engine = engine;
      o.mode = mode;
      o.intra_op_threads = 1;
      sets.push_back(o);
    }
  }
  return sets;
}

std::string describe(const SessionOptions& o) {
  return std::string(o.engine == EngineKind::Reference ? "reference" : "optimized") +
         (o.mode == ExecutionMode::Exact ? " exact" : " fast");
}

void expect_same_bits(const std::vector<float>& got, const Tensor& want, const std::string& where) {
  ASSERT_EQ(want.dtype(), DType::F32) << where;
  const std::vector<float> w = want.to_vector<float>();
  ASSERT_EQ(got.size(), w.size()) << where;
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_EQ(float_bits(got[i]), float_bits(w[i])) << where << " element " << i;
}

// classifier.onnx: x [batch, 4] -> probs [batch, 3]. Four values are one row, eight are two
// (getting-started.md "Run a model", "What Run accepts").
TEST(ModelApi, FloatFormsOnTheClassifierEqualSessionRun) {
  const std::vector<float> one = {5.1f, 3.5f, 1.4f, 0.2f};
  const std::vector<float> two = {5.1f, 3.5f, 1.4f, 0.2f, 6.7f, 3.0f, 5.2f, 2.3f};
  for (const SessionOptions& o : option_sets()) {
    const Model model = Model::load(sample("classifier.onnx"), o);
    const Session session = Session::load(sample("classifier.onnx"), o);
    expect_same_bits(model.run(std::span<const float>(one)), session.run({{"x", f32(Shape{1, 4}, one)}}).at(0),
                     describe(o) + " one row");
    expect_same_bits(model.run(std::span<const float>(two)), session.run({{"x", f32(Shape{2, 4}, two)}}).at(0),
                     describe(o) + " two rows");
    expect_same_bits(model.run(std::span<const float>(two), std::vector<std::int64_t>{2, 4}),
                     session.run({{"x", f32(Shape{2, 4}, two)}}).at(0), describe(o) + " shape given");
    // The span form writes into the caller's buffer and returns the output's shape.
    std::vector<float> out(6, -1.0f);
    const std::vector<std::int64_t> shape = {2, 4};
    const std::vector<std::int64_t> out_shape = model.session().run_span(two, shape, out);
    EXPECT_EQ(out_shape, (std::vector<std::int64_t>{2, 3}));
    expect_same_bits(out, session.run({{"x", f32(Shape{2, 4}, two)}}).at(0), describe(o) + " run_span");
    // Values that fill no whole row, or a shape that holds another count, are InvalidInput.
    const std::vector<float> five(5, 1.0f);
    EXPECT_EQ(SessionErrorKind::InvalidInput,
              ir_builder::session_error_kind_of([&] { (void)model.run(std::span<const float>(five)); }));
    EXPECT_EQ(SessionErrorKind::InvalidInput, ir_builder::session_error_kind_of([&] {
                (void)model.run(std::span<const float>(two), std::vector<std::int64_t>{3, 4});
              }));
  }
}

// wide.onnx: x [1, 256] fixed -> y [1, 64].
TEST(ModelApi, FixedShapeSampleEqualsSessionRun) {
  std::vector<float> x(256);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.125f;
  for (const SessionOptions& o : option_sets()) {
    const Model model = Model::load(sample("wide.onnx"), o);
    const Session session = Session::load(sample("wide.onnx"), o);
    expect_same_bits(model.run(std::span<const float>(x)), session.run({{"x", f32(Shape{1, 256}, x)}}).at(0), describe(o));
  }
}

// scorer.onnx has two inputs (features, bias) and two outputs: Model::run refuses it.
TEST(ModelApi, SeveralInputsOrOutputsAreRefused) {
  const Model model = Model::load(sample("scorer.onnx"));
  const std::vector<float> v(3, 1.0f);
  EXPECT_EQ(SessionErrorKind::InvalidInput,
            ir_builder::session_error_kind_of([&] { (void)model.run(std::span<const float>(v)); }));
}

// A text encoder: ids [batch, sequence] (symbolic), optionally attention_mask and token_type_ids
// of the same shape; out[b, s, :] = sum over t <= s of (E[ids[b, t]] + T[type[b, t]]) * mask[b, t].
IrModel text_encoder(bool with_mask_and_types, DType id_type) {
  std::vector<float> embedding(10 * 3), types = {0.5f, -0.25f, 2.0f, 1.0f, 3.0f, -1.0f};
  for (std::size_t i = 0; i < embedding.size(); ++i) embedding[i] = static_cast<float>(i * i % 11) * 0.75f - 2.0f;
  GraphBuilder b(17);
  b.input("input_ids", id_type, Shape{1, 1}).initializer("E", f32(Shape{10, 3}, embedding));
  b.initializer("axis", i64(Shape{}, {1}));
  if (with_mask_and_types) {
    b.input("attention_mask", DType::I64, Shape{1, 1})
        .input("token_type_ids", DType::I64, Shape{1, 1})
        .initializer("T", f32(Shape{2, 3}, types))
        .initializer("last", i64(Shape{1}, {-1}))
        .node("Gather", {"E", "input_ids"}, {"emb"})
        .node("Gather", {"T", "token_type_ids"}, {"typ"})
        .node("Add", {"emb", "typ"}, {"sum"})
        .node("Cast", {"attention_mask"}, {"maskf"}, {int_attr("to", static_cast<std::int64_t>(DType::F32))})
        .node("Unsqueeze", {"maskf", "last"}, {"mask3"})
        .node("Mul", {"sum", "mask3"}, {"h"})
        .node("CumSum", {"h", "axis"}, {"out"});
  } else {
    b.node("Gather", {"E", "input_ids"}, {"emb"}).node("CumSum", {"emb", "axis"}, {"out"});
  }
  b.output("out", DType::F32);
  IrModel m = b.build();
  // Declare every input [batch, sequence]: the shape a tokenizer's output has.
  for (IrValueInfo& input : m.graph.inputs) {
    input.type.shape.assign(2, IrDim{});
    input.type.shape[0].kind = IrDim::Kind::Param;
    input.type.shape[0].param = "batch";
    input.type.shape[1].kind = IrDim::Kind::Param;
    input.type.shape[1].param = "sequence";
  }
  return m;
}

class ModelApiTextEncoder : public ::testing::Test {
 protected:
  std::filesystem::path write(const IrModel& model, const std::string& name) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "onemodel_model_api_test";
    std::filesystem::create_directories(dir);
    const std::filesystem::path path = dir / (name + ".onemodel");
    write_onemodel_file(model, path);
    return path;
  }
};

// reference-models.md: "token ids declared [batch, sequence] with no shape given are taken as one
// sequence"; the mask is ones and the segment ids zeros, both in the ids' shape.
TEST_F(ModelApiTextEncoder, TokenIdsAreOneSequenceWithMaskOfOnesAndZeroSegments) {
  const std::filesystem::path path = write(text_encoder(true, DType::I64), "encoder_mask");
  const std::vector<std::int64_t> ids = {3, 7, 1, 9, 0};
  for (const SessionOptions& o : option_sets()) {
    const Model model = Model::load(path, o);
    const Session session = Session::load(path, o);
    const std::vector<float> got = model.run(std::span<const std::int64_t>(ids));
    const Tensor want = session.run({{"input_ids", i64(Shape{1, 5}, ids)},
                                     {"attention_mask", i64(Shape{1, 5}, {1, 1, 1, 1, 1})},
                                     {"token_type_ids", i64(Shape{1, 5}, {0, 0, 0, 0, 0})}})
                            .at(0);
    EXPECT_EQ(want.shape(), (Shape{1, 5, 3}));
    expect_same_bits(got, want, describe(o) + " one sequence");
    // The order-sensitive graph tells [1, N] from [N, 1]: the two runs differ.
    const Tensor columns = session.run({{"input_ids", i64(Shape{5, 1}, ids)},
                                        {"attention_mask", i64(Shape{5, 1}, {1, 1, 1, 1, 1})},
                                        {"token_type_ids", i64(Shape{5, 1}, {0, 0, 0, 0, 0})}})
                               .at(0);
    EXPECT_NE(columns.to_vector<float>(), want.to_vector<float>());
    // With a shape, the ids are split as given: two sequences of three.
    const std::vector<std::int64_t> six = {3, 7, 1, 9, 0, 2};
    const Tensor two = session.run({{"input_ids", i64(Shape{2, 3}, six)},
                                    {"attention_mask", i64(Shape{2, 3}, {1, 1, 1, 1, 1, 1})},
                                    {"token_type_ids", i64(Shape{2, 3}, {0, 0, 0, 0, 0, 0})}})
                           .at(0);
    expect_same_bits(model.run(std::span<const std::int64_t>(six), std::vector<std::int64_t>{2, 3}), two,
                     describe(o) + " shape given");
  }
}

TEST_F(ModelApiTextEncoder, TokenIdsAloneAreOneSequence) {
  const std::filesystem::path path = write(text_encoder(false, DType::I64), "encoder_ids");
  const std::vector<std::int64_t> ids = {4, 4, 8, 2};
  for (const SessionOptions& o : option_sets()) {
    const Model model = Model::load(path, o);
    const Session session = Session::load(path, o);
    expect_same_bits(model.run(std::span<const std::int64_t>(ids)), session.run({{"input_ids", i64(Shape{1, 4}, ids)}}).at(0),
                     describe(o));
  }
}

// The int32 form on a model whose input is int32 [batch, sequence] (Gather takes int32 indices).
TEST_F(ModelApiTextEncoder, Int32FormEqualsSessionRun) {
  const std::filesystem::path path = write(text_encoder(false, DType::I32), "encoder_i32");
  const std::vector<std::int32_t> ids = {1, 2, 3, 5, 8, 9};
  for (const SessionOptions& o : option_sets()) {
    const Model model = Model::load(path, o);
    const Session session = Session::load(path, o);
    const Tensor shaped = Tensor::from_values<std::int32_t>(DType::I32, Shape{3, 2}, std::span<const std::int32_t>(ids));
    expect_same_bits(model.run(std::span<const std::int32_t>(ids), std::vector<std::int64_t>{3, 2}),
                     session.run({{"input_ids", shaped}}).at(0), describe(o) + " shape given");
    // Without a shape the count goes to the first free dimension (spec/session.md section 6):
    // the int32 form is not the token-id form.
    const Tensor rows = Tensor::from_values<std::int32_t>(DType::I32, Shape{6, 1}, std::span<const std::int32_t>(ids));
    expect_same_bits(model.run(std::span<const std::int32_t>(ids)), session.run({{"input_ids", rows}}).at(0),
                     describe(o) + " no shape");
  }
}

}  // namespace
}  // namespace onemodel
