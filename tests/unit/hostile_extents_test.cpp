// Issue 11 (Hardening), defects 3 and 4: operators shaped by an empty axis or by an integer near
// the ends of int64 (spec/operator-contract.md section 6). Each case ran into a crash, undefined
// behaviour (UBSan in the Checked build) or a wrapped, wrong result before its fix; now it gives
// the ONNX result or a typed refusal, the same in both engines and both modes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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
using ir_builder::int_attr;
using ir_builder::ints_attr;
using ir_builder::string_attr;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

using Feeds = std::vector<std::pair<std::string, Tensor>>;

Tensor int64s(std::vector<std::int64_t> values) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(values.size())},
                                           std::span<const std::int64_t>(values));
}

// One node reading graph input "x" (and the given initializers or further graph inputs).
struct OneNode {
  std::int64_t opset = 17;
  std::string op;
  Tensor x;
  std::vector<std::pair<std::string, Tensor>> initializers;
  std::vector<std::pair<std::string, Tensor>> more_inputs;  // fed at run time
  std::vector<std::string> node_inputs;                    // default: x, then the others in order
  std::vector<IrAttribute> attributes;
  DType output_type = DType::F32;

  IrModel model() const {
    GraphBuilder builder(opset);
    builder.input("x", x.dtype(), x.shape());
    for (const auto& [name, value] : more_inputs) builder.input(name, value.dtype(), value.shape());
    for (const auto& [name, value] : initializers) builder.initializer(name, value);
    std::vector<std::string> inputs = node_inputs;
    if (inputs.empty()) {
      inputs.push_back("x");
      for (const auto& [name, value] : initializers) inputs.push_back(name);
      for (const auto& [name, value] : more_inputs) inputs.push_back(name);
    }
    builder.node(op, inputs, {"y"}, attributes);
    builder.output("y", output_type);
    return builder.build();
  }
  Feeds feeds() const {
    Feeds f = {{"x", x}};
    for (const auto& input : more_inputs) f.push_back(input);
    return f;
  }
};

std::vector<std::byte> bytes_of(const Tensor& t) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(t.element_count()) * dtype_size(t.dtype()));
  t.copy_to(bytes);
  return bytes;
}

SessionOptions options_for(EngineKind engine, ExecutionMode mode) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  return options;
}

// Session creation and a run in both engines and modes end in a SessionError of `kind`.
void expect_refused(const OneNode& c, SessionErrorKind kind) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      SCOPED_TRACE(std::string(engine == EngineKind::Reference ? "reference" : "optimized") +
                   (mode == ExecutionMode::Exact ? " exact" : " fast"));
      try {
        const IrModel model = c.model();
        (void)Session::create(model, options_for(engine, mode)).run(c.feeds());
        ADD_FAILURE() << c.op << " ran";
      } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
      }
    }
  }
}

// A one-node model of `op` on x with these attributes, refused with `kind` in every engine and mode.
void expect_one_node_refused(std::int64_t opset, const std::string& op, Tensor x, std::vector<IrAttribute> attributes,
                             SessionErrorKind kind) {
  OneNode c;
  c.opset = opset;
  c.op = op;
  c.x = std::move(x);
  c.attributes = std::move(attributes);
  expect_refused(c, kind);
}

// The single output in both engines and modes (checked equal to `expected` bit for bit).
void expect_output(const OneNode& c, const Tensor& expected) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      SCOPED_TRACE(std::string(engine == EngineKind::Reference ? "reference" : "optimized") +
                   (mode == ExecutionMode::Exact ? " exact" : " fast"));
      const IrModel model = c.model();
      const std::vector<Tensor> out = Session::create(model, options_for(engine, mode)).run(c.feeds());
      ASSERT_EQ(out.size(), 1u);
      ASSERT_EQ(out[0].dtype(), expected.dtype());
      ASSERT_EQ(out[0].shape(), expected.shape());
      EXPECT_EQ(bytes_of(out[0]), bytes_of(expected));
    }
  }
}


// Defect 3: Resize with sizes on an input with an empty axis. The scale out / 0 was infinite and
// every tap read index -1: a segmentation fault in both engines. An empty axis has nothing to
// interpolate from (spec/ops/products-conv.md section 10.1): InvalidInput, whether sizes is a
// constant or fed, in every mode of interpolation.
TEST(HostileExtents, ResizeOfAnEmptyAxisToANonEmptyOneIsRefused) {
  for (const char* mode : {"linear", "nearest", "cubic"}) {
    for (bool fed : {false, true}) {
      SCOPED_TRACE(std::string(mode) + (fed ? " fed sizes" : " constant sizes"));
      OneNode c;
      c.opset = 13;
      c.op = "Resize";
      c.x = Tensor::zeros(DType::F32, Shape{1, 1, 0, 2});
      (fed ? c.more_inputs : c.initializers).push_back({"sizes", int64s({1, 1, 2, 2})});
      c.node_inputs = {"x", "", "", "sizes"};
      c.attributes = {string_attr("mode", mode)};
      expect_refused(c, SessionErrorKind::InvalidInput);
    }
  }
}

// The same under keep_aspect_ratio_policy (opset 18): the ratio size / 0 of an empty axis means
// nothing, whatever size it asks for.
TEST(HostileExtents, ResizeKeepingTheAspectRatioOfAnEmptyAxisIsRefused) {
  for (const char* policy : {"not_larger", "not_smaller"}) {
    for (std::int64_t size : {0, 2}) {
      SCOPED_TRACE(std::string(policy) + " size " + std::to_string(size));
      OneNode c;
      c.opset = 18;
      c.op = "Resize";
      c.x = Tensor::zeros(DType::F32, Shape{1, 1, 0, 2});
      c.initializers = {{"sizes", int64s({size, 4})}};
      c.node_inputs = {"x", "", "", "sizes"};
      c.attributes = {string_attr("mode", "linear"), ints_attr("axes", {2, 3}),
                      string_attr("keep_aspect_ratio_policy", policy)};
      expect_refused(c, SessionErrorKind::InvalidInput);
    }
  }
}

// An empty axis resized to an empty axis is the empty tensor (ONNX Resize: output extent = sizes).
TEST(HostileExtents, ResizeOfAnEmptyAxisToAnEmptyOneIsEmpty) {
  OneNode c;
  c.opset = 13;
  c.op = "Resize";
  c.x = Tensor::zeros(DType::F32, Shape{1, 1, 0, 2});
  c.initializers = {{"sizes", int64s({1, 1, 0, 3})}};
  c.node_inputs = {"x", "", "", "sizes"};
  c.attributes = {string_attr("mode", "linear")};
  expect_output(c, Tensor::zeros(DType::F32, Shape{1, 1, 0, 3}));
}

// Defect 4, the case: pads [0, INT64_MAX, 0, INT64_MAX] on x[2, 4] (the Release build
// wrapped the extent to 2 and returned a wrong [2, 2]). Unsupported: beyond every limit.
TEST(HostileExtents, PadWithInt64MaxOnBothEndsIsRefused) {
  OneNode c;
  c.opset = 11;
  c.op = "Pad";
  c.x = Tensor::zeros(DType::F32, Shape{2, 4});
  c.initializers = {{"pads", int64s({0, kInt64Max, 0, kInt64Max})}};
  expect_refused(c, SessionErrorKind::Unsupported);
}

// A begin pad near INT64_MIN with an end pad near INT64_MAX sums to a small extent (4 + MIN + MAX
// = 3), so the extent check passed, and run() read output i at i - begin, which wrapped (UBSan).
// Refused in the input form (constant and fed pads, every mode) and the attribute form (Pad-2).
TEST(HostileExtents, PadWithInt64MinBeginAndInt64MaxEndIsRefused) {
  for (const char* mode : {"constant", "reflect", "edge"}) {
    for (bool fed : {false, true}) {
      SCOPED_TRACE(std::string(mode) + (fed ? " fed pads" : " constant pads"));
      OneNode c;
      c.opset = 11;
      c.op = "Pad";
      c.x = Tensor::zeros(DType::F32, Shape{2, 4});
      (fed ? c.more_inputs : c.initializers).push_back({"pads", int64s({0, kInt64Min, 0, kInt64Max})});
      c.attributes = {string_attr("mode", mode)};
      expect_refused(c, SessionErrorKind::Unsupported);
    }
  }
  expect_one_node_refused(2, "Pad", Tensor::zeros(DType::F32, Shape{2, 4}),
      {ints_attr("pads", {0, kInt64Min + 1, 0, kInt64Max})}, SessionErrorKind::Unsupported);
}

// DepthToSpace with blocksize 2^32: b * b wrapped to 0 and C % 0 trapped (SIGFPE); INT64_MAX
// overflowed b * b (UBSan). Unsupported.
TEST(HostileExtents, DepthToSpaceWithAHugeBlocksizeIsRefused) {
  for (std::int64_t block : {std::int64_t{1} << 32, kInt64Max}) {
    SCOPED_TRACE(block);
    expect_one_node_refused(13, "DepthToSpace", Tensor::zeros(DType::F32, Shape{1, 4, 2, 2}),
        {int_attr("blocksize", block)}, SessionErrorKind::Unsupported);
  }
}

// DepthToSpace of an input with no channels: 0 divides by any b * b, and H * b overflowed for a
// huge b. Unsupported.
TEST(HostileExtents, DepthToSpaceOfNoChannelsWithAHugeBlocksizeIsRefused) {
  expect_one_node_refused(13, "DepthToSpace", Tensor::zeros(DType::F32, Shape{1, 0, 2, 2}),
      {int_attr("blocksize", std::int64_t{1} << 62)}, SessionErrorKind::Unsupported);
}

// SpaceToDepth of an empty spatial input (0 divides by any blocksize) with blocksize 2^32 or
// INT64_MAX: C * b * b overflowed. Unsupported.
TEST(HostileExtents, SpaceToDepthWithAHugeBlocksizeIsRefused) {
  for (std::int64_t block : {std::int64_t{1} << 32, kInt64Max}) {
    SCOPED_TRACE(block);
    expect_one_node_refused(13, "SpaceToDepth", Tensor::zeros(DType::F32, Shape{1, 4, 0, 0}),
        {int_attr("blocksize", block)}, SessionErrorKind::Unsupported);
  }
}

// Split sizes [1, INT64_MAX] on an extent of 4: the running sum overflowed (UBSan). The sizes do
// not add up to the extent: InvalidModel (spec/ops/shape-indexing.md section 2, Split).
TEST(HostileExtents, SplitSizesThatOverflowTheirSumAreRefused) {
  GraphBuilder builder(13);
  builder.input("x", DType::F32, Shape{2, 4});
  builder.initializer("split", int64s({1, kInt64Max}));
  builder.node("Split", {"x", "split"}, {"a", "b"}, {int_attr("axis", 1)});
  builder.output("a", DType::F32);
  builder.output("b", DType::F32);
  const IrModel model = builder.build();
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      try {
        (void)Session::create(model, options_for(engine, mode)).run({{"x", Tensor::zeros(DType::F32, Shape{2, 4})}});
        ADD_FAILURE() << "Split ran";
      } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
      }
    }
  }
}

// GroupNormalization with num_groups = INT64_MAX on an input with no channels (0 divides by it):
// N * num_groups overflowed. Unsupported.
TEST(HostileExtents, GroupNormalizationWithHugeNumGroupsIsRefused) {
  OneNode c;
  c.opset = 21;
  c.op = "GroupNormalization";
  c.x = Tensor::zeros(DType::F32, Shape{2, 0, 3});
  c.initializers = {{"scale", Tensor::zeros(DType::F32, Shape{0})}, {"bias", Tensor::zeros(DType::F32, Shape{0})}};
  c.attributes = {int_attr("num_groups", kInt64Max)};
  expect_refused(c, SessionErrorKind::Unsupported);
}

// Range on int64 operands near the ends: the count from the double quotient was one too many
// (the second element start + delta lies past INT64_MAX: a wrong result and a signed overflow),
// and i * delta overflowed for elements that fit (start INT64_MIN, delta 2^62, i = 3). The exact
// elements (ONNX Range: start + i * delta while before limit).
TEST(HostileExtents, Int64RangeNearTheEndsIsExact) {
  struct Case {
    std::int64_t start, limit, delta;
    std::vector<std::int64_t> expected;
  };
  const std::int64_t quarter = std::int64_t{1} << 62;
  const std::vector<Case> cases = {
      {7580426294882326802, 9223372036854775575, 1642945741972449151, {7580426294882326802}},
      {kInt64Min, kInt64Max, quarter, {kInt64Min, -quarter, 0, quarter}},
      {kInt64Max, kInt64Min, -quarter, {kInt64Max, kInt64Max - quarter, -1, -1 - quarter}},
  };
  for (const Case& k : cases) {
    for (bool fed : {false, true}) {
      SCOPED_TRACE(std::to_string(k.start) + " " + std::to_string(k.limit) + " " + std::to_string(k.delta));
      OneNode c;
      c.opset = 11;
      c.op = "Range";
      c.x = Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {k.start});
      auto& others = fed ? c.more_inputs : c.initializers;
      others.push_back({"limit", Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {k.limit})});
      others.push_back({"delta", Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {k.delta})});
      c.output_type = DType::I64;
      expect_output(c, int64s(k.expected));
    }
  }
}

// The same in int32: i * delta was computed in int and overflowed (start INT32_MIN, delta 2^30).
TEST(HostileExtents, Int32RangeNearTheEndsIsExact) {
  const std::int32_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  const std::int32_t step = std::int32_t{1} << 30;
  OneNode c;
  c.opset = 11;
  c.op = "Range";
  c.x = Tensor::from_values<std::int32_t>(DType::I32, Shape{}, {lo});
  c.initializers = {{"limit", Tensor::from_values<std::int32_t>(DType::I32, Shape{}, {hi})},
                    {"delta", Tensor::from_values<std::int32_t>(DType::I32, Shape{}, {step})}};
  c.output_type = DType::I32;
  expect_output(c, Tensor::from_values<std::int32_t>(DType::I32, Shape{4}, {lo, -step, 0, step}));
}

// Blocked DequantizeLinear (opset 21) with block_size = INT64_MAX: ceil(extent / block) was
// computed as (extent + block - 1) / block, which overflowed (UBSan). One block covers the axis,
// so each row uses its one scale (ONNX DequantizeLinear, blocked quantization).
TEST(HostileExtents, BlockedDequantizeWithAHugeBlockSizeIsOneBlock) {
  OneNode c;
  c.opset = 21;
  c.op = "DequantizeLinear";
  c.x = Tensor::from_values<std::int8_t>(DType::I8, Shape{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  c.initializers = {{"scale", Tensor::from_values<float>(DType::F32, Shape{2, 1}, {0.5f, 2.0f})}};
  c.attributes = {int_attr("axis", 1), int_attr("block_size", kInt64Max)};
  expect_output(c, Tensor::from_values<float>(DType::F32, Shape{2, 4}, {0.5f, 1.0f, 1.5f, 2.0f, 10.0f, 12.0f, 14.0f, 16.0f}));
}

}  // namespace
}  // namespace onemodel
