// STRING tensors (spec/tensors.md section 8): storage, views, copies, lifetimes, refusals of
// byte-level access, and the engines' handling (the guard of kernels without string_elements,
// the optimized plan keeping strings out of its slab). Expected values are written by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/conformance/compare.hpp"
#include "core/ir/resolve.hpp"
#include "onemodel/arena.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kString = 8;

Tensor strings(const Shape& shape, std::vector<std::string> v) { return Tensor::from_strings(shape, v); }

TEST(StringTensor, HoldsAnyBytesAndReadsBack) {
  const std::string with_nul("a\0b", 3);
  const std::string long_one(1000, 'x');
  const Tensor t = strings(Shape{2, 2}, {"", with_nul, long_one, "\xff\xfe"});
  EXPECT_EQ(t.dtype(), DType::String);
  EXPECT_TRUE(t.buffer()->holds_strings());
  EXPECT_FALSE(t.buffer()->borrowed());
  EXPECT_EQ(t.at<std::string>({0, 1}), with_nul);
  EXPECT_EQ(t.at<std::string>({1, 0}), long_one);
  EXPECT_EQ(t.to_vector<std::string>(), (std::vector<std::string>{"", with_nul, long_one, "\xff\xfe"}));
  t.validate();
}

TEST(StringTensor, EmptyAndZerosHoldEmptyStrings) {
  const Tensor e = Tensor::empty(DType::String, Shape{3});
  EXPECT_EQ(e.to_vector<std::string>(), (std::vector<std::string>{"", "", ""}));
  const Tensor z = Tensor::zeros(DType::String, Shape{0, 4});
  EXPECT_EQ(z.element_count(), 0);
  EXPECT_TRUE(z.to_vector<std::string>().empty());
  z.validate();
}

TEST(StringTensor, ViewsReadTheRightElements) {
  const Tensor t = strings(Shape{2, 3}, {"a", "b", "c", "d", "e", "f"});
  // Transpose: (3, 2) row-major a d b e c f.
  EXPECT_EQ(t.t().to_vector<std::string>(), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
  EXPECT_EQ(t.slice(1, 0, 3, 2).to_vector<std::string>(), (std::vector<std::string>{"a", "c", "d", "f"}));
  EXPECT_EQ(t.flip(0).select(0, 0).to_vector<std::string>(), (std::vector<std::string>{"d", "e", "f"}));
  EXPECT_EQ(t.reshape({3, 2}).at<std::string>({2, 1}), "f");
  // A non-viewable reshape copies through contiguous().
  EXPECT_EQ(t.t().reshape({6}).to_vector<std::string>(), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
  const Tensor expanded = strings(Shape{1, 2}, {"p", "q"}).expand(Shape{2, 2});
  EXPECT_EQ(expanded.contiguous().to_vector<std::string>(), (std::vector<std::string>{"p", "q", "p", "q"}));
}

TEST(StringTensor, CopiesAreDeepAndViewsShare) {
  const Tensor t = strings(Shape{2}, {"one", "two"});
  const Tensor view = t.reshape({2, 1});
  t.set<std::string>({0}, "uno");
  EXPECT_EQ(view.at<std::string>({0, 0}), "uno");  // a view shares the elements
  const Tensor copy = Tensor::empty(DType::String, Shape{2});
  t.copy_elements_to(copy);
  t.set<std::string>({1}, "dos");
  EXPECT_EQ(copy.to_vector<std::string>(), (std::vector<std::string>{"uno", "two"}));  // a copy does not
}

TEST(StringTensor, ViewsKeepTheStringsAliveAfterTheOriginalGoes) {
  Tensor view;
  {
    const Tensor t = strings(Shape{3}, {"keep", std::string(200, 'k'), "me"});
    view = t.slice(0, 1, 3);
  }
  // AddressSanitizer builds would report a use after free here if the buffer had gone.
  EXPECT_EQ(view.to_vector<std::string>(), (std::vector<std::string>{std::string(200, 'k'), "me"}));
}

TEST(StringTensor, ReleaseDestroysTheStringsAndMakesViewsStale) {
  const Tensor t = strings(Shape{2}, {std::string(100, 'a'), "b"});
  const Tensor view = t.slice(0, 0, 1);
  t.release();
  EXPECT_TRUE(view.is_stale());
  EXPECT_THROW((void)view.at<std::string>({0}), TensorError);
  EXPECT_THROW(t.release(), TensorError);
}

TEST(StringTensor, ByteLevelAccessIsRefused) {
  const Tensor t = strings(Shape{2}, {"a", "b"});
  EXPECT_THROW((void)dtype_size(DType::String), TensorError);
  std::vector<std::byte> out(64);
  EXPECT_THROW(t.copy_to(out), TensorError);
  EXPECT_THROW((void)Tensor::from_bytes(DType::String, Shape{1}, std::span<const std::byte>(out.data(), 8)), TensorError);
  EXPECT_THROW((void)t.data<std::int64_t>(), TensorError);
  // Raw memory (a slab, an arena chunk) never holds strings.
  auto raw = BufferPool::shared().rent(256);
  EXPECT_THROW((void)Tensor::over(raw, 0, 256, DType::String, Shape{2}), TensorError);
  EXPECT_THROW((void)Tensor::from_strings(Shape{3}, std::vector<std::string>{"a"}), TensorError);
}

TEST(StringTensor, ArenaGivesStringsABufferOfTheirOwn) {
  Arena arena(BufferPool::shared(), 4096);
  const Tensor t = arena.allocate(DType::String, Shape{4});
  EXPECT_TRUE(t.buffer()->holds_strings());
  t.set<std::string>({3}, "z");
  arena.reset();
  EXPECT_EQ(t.at<std::string>({3}), "z");  // not an arena chunk: the reset does not touch it
}

TEST(StringTensor, StorageBytesCountOneObjectPerString) {
  EXPECT_EQ(checked_storage_bytes(Shape{3}, DType::String), static_cast<std::int64_t>(3 * sizeof(std::string)));
  EXPECT_THROW((void)checked_byte_size(Shape{3}, DType::String), TensorError);
  EXPECT_EQ(checked_storage_bytes(Shape{3}, DType::F32), 12);
}

// The conformance runner compares strings byte for byte and shows the first difference escaped.
TEST(StringTensor, ConformanceComparisonOfStrings) {
  const Tensor a = strings(Shape{3}, {"x", "same", std::string("a\0", 2)});
  EXPECT_TRUE(conformance::compare_tensors(a, strings(Shape{3}, {"x", "same", std::string("a\0", 2)}), "output 'y'").equal);
  const conformance::Comparison c = conformance::compare_tensors(a, strings(Shape{3}, {"x", "same", "a"}), "output 'y'");
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NE(c.reason.find("got \"a\\x00\", expected \"a\""), std::string::npos) << c.reason;
}

// ---- sessions -----------------------------------------------------------------------------

SessionOptions options_for(EngineKind engine, ExecutionMode mode) {
  SessionOptions o;
  o.engine = engine;
  o.mode = mode;
  return o;
}

// x (STRING [2]) -> Identity -> Reshape [2, 1] -> StringConcat with itself -> y, both engines.
IrModel identity_concat_model() {
  IrModel m;
  m.ir_version = 9;
  m.opset_imports = {{"", 21}};
  m.graph.inputs = {fixed_tensor_value_info("x", kString, Shape{2})};
  IrTensor shape;
  shape.name = "shape";
  shape.data_type = 7;
  shape.dims = {2};
  static const std::int64_t kShape[2] = {2, 1};
  shape.data = ByteView{reinterpret_cast<const std::byte*>(kShape), sizeof kShape, nullptr};
  m.graph.initializers = {shape};
  m.graph.nodes = {node("Identity", {"x"}, {"a"}), node("Reshape", {"a", "shape"}, {"b"}),
                   node("StringConcat", {"b", "b"}, {"y"})};
  m.graph.nodes[1].name = "reshape_node";
  m.graph.nodes[2].name = "concat_node";
  m.graph.outputs = {unshaped_tensor_value_info("y", kString)};
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

TEST(StringSession, BothEnginesRunAStringGraph) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      Session s = Session::create(identity_concat_model(), options_for(engine, mode));
      for (int run = 0; run < 3; ++run) {  // warm runs reuse the plan and its run state
        const std::vector<Tensor> y = s.run({{"x", strings(Shape{2}, {"ab", std::string(40, 'c')})}});
        ASSERT_EQ(y.size(), 1u);
        EXPECT_EQ(y[0].shape(), (Shape{2, 1}));
        EXPECT_EQ(y[0].to_vector<std::string>(), (std::vector<std::string>{"abab", std::string(80, 'c')}));
      }
    }
  }
}

TEST(StringSession, StringInitializerAndConstantNode) {
  IrModel m;
  m.ir_version = 9;
  m.opset_imports = {{"", 21}};
  m.graph.inputs = {fixed_tensor_value_info("x", kString, Shape{2})};
  IrTensor suffix;
  suffix.name = "suffix";
  suffix.data_type = kString;
  suffix.dims = {1};
  suffix.strings = {"!"};
  m.graph.initializers = {suffix};
  IrNode constant = node("Constant", {}, {"prefix"});
  constant.attributes = {string_attr("value_string", ">")};
  m.graph.nodes = {constant, node("StringConcat", {"prefix", "x"}, {"a"}), node("StringConcat", {"a", "suffix"}, {"y"})};
  m.graph.nodes[1].name = "first";
  m.graph.nodes[2].name = "second";
  m.graph.outputs = {unshaped_tensor_value_info("y", kString)};
  resolve_model(m, FieldPathStyle::Onnx);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    Session s = Session::create(m, options_for(engine, ExecutionMode::Exact));
    const std::vector<Tensor> y = s.run({{"x", strings(Shape{2}, {"a", ""})}});
    EXPECT_EQ(y[0].to_vector<std::string>(), (std::vector<std::string>{">a!", ">!"}));
  }
}

// Concat and Gather assign strings (spec/tensors.md section 8): hand-worked [2, 2] cases, both
// engines (the optimized overrides run the reference kernel for STRING).
TEST(StringSession, ConcatAndGatherMoveStrings) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    IrModel concat = one_node_model("Concat", 13, {{"a", strings(Shape{2, 1}, {"a", "c"})}, {"b", strings(Shape{2, 1}, {"b", "d"})}},
                                    {unshaped_tensor_value_info("y", kString)}, {int_attr("axis", 1)});
    Session s = Session::create(concat, options_for(engine, ExecutionMode::Exact));
    const std::vector<Tensor> y = s.run({{"a", strings(Shape{2, 1}, {"a", "c"})}, {"b", strings(Shape{2, 1}, {"b", "d"})}});
    EXPECT_EQ(y[0].to_vector<std::string>(), (std::vector<std::string>{"a", "b", "c", "d"}));
    const Tensor data = strings(Shape{3, 2}, {"p", "q", "r", "s", "t", "u"});
    const Tensor indices = Tensor::from_values<std::int64_t>(DType::I64, Shape{2}, {-1, 0});
    IrModel gather = one_node_model("Gather", 13, {{"x", data}, {"i", indices}}, {unshaped_tensor_value_info("y", kString)}, {});
    Session g = Session::create(gather, options_for(engine, ExecutionMode::Exact));
    const std::vector<Tensor> z = g.run({{"x", data}, {"i", indices}});
    EXPECT_EQ(z[0].shape(), (Shape{2, 2}));
    EXPECT_EQ(z[0].to_vector<std::string>(), (std::vector<std::string>{"t", "u", "p", "q"}));
  }
}

// A kernel without string_elements never sees strings: Unsupported naming the node, in both
// engines (ReduceMax orders numbers only).
TEST(StringSession, OtherOperatorsRefuseStrings) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    IrModel m = one_node_model("ReduceMax", 18, {{"x", strings(Shape{2, 1}, {"a", "b"})}},
                               {unshaped_tensor_value_info("y", kString)}, {});
    try {
      Session s = Session::create(m, options_for(engine, ExecutionMode::Fast));
      (void)s.run({{"x", strings(Shape{2, 1}, {"a", "b"})}});
      ADD_FAILURE() << "no error";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::Unsupported) << e.what();
      // The guard's refusal (not a byte-level TensorError deeper down).
      EXPECT_NE(std::string(e.what()).find("input 0 has element type String"), std::string::npos) << e.what();
    }
  }
}

// The OneModel format keeps STRING initializers (spec/tensors.md section 8): a model written and
// read back runs with the same strings, NUL and high bytes included.
TEST(StringSession, OneModelFormatRoundTripRuns) {
  IrModel m;
  m.ir_version = 9;
  m.opset_imports = {{"", 21}};
  m.graph.inputs = {fixed_tensor_value_info("x", kString, Shape{2})};
  IrTensor suffix;
  suffix.name = "suffix";
  suffix.data_type = kString;
  suffix.dims = {2};
  suffix.strings = {std::string("\0\xff", 2), ""};
  m.graph.initializers = {suffix};
  m.graph.nodes = {node("StringConcat", {"x", "suffix"}, {"y"})};
  m.graph.outputs = {unshaped_tensor_value_info("y", kString)};
  resolve_model(m, FieldPathStyle::Onnx);
  const std::vector<std::byte> bytes = write_onemodel_bytes(m);
  auto owner = std::make_shared<std::vector<std::byte>>(bytes);
  const ByteView view{owner->data(), owner->size(), owner};
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    Session s = Session::load_bytes(view, "strings.onemodel", options_for(engine, ExecutionMode::Exact));
    const std::vector<Tensor> y = s.run({{"x", strings(Shape{2}, {"a", "b"})}});
    EXPECT_EQ(y[0].to_vector<std::string>(), (std::vector<std::string>{std::string("a\0\xff", 3), "b"}));
  }
}

TEST(StringSession, CallerOutputsAreFilledWithCopies) {
  Session s = Session::create(identity_concat_model(), options_for(EngineKind::Optimized, ExecutionMode::Fast));
  const std::vector<std::string> names_in = {"x"};
  const std::vector<Tensor> in = {strings(Shape{2}, {"p", "q"})};
  const std::vector<std::string> names_out = {"y"};
  std::vector<Tensor> out = {Tensor::empty(DType::String, Shape{2, 1})};
  s.run(names_in, in, names_out, out);
  EXPECT_EQ(out[0].to_vector<std::string>(), (std::vector<std::string>{"pp", "qq"}));
}

}  // namespace
}  // namespace onemodel
