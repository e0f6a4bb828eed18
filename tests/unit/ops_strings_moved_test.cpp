// STRING elements through the indexing, padding, Unique, sequence and control-flow operators
// (spec/tensors.md section 8). Each test runs the reference engine (exact mode) and the optimized
// engine and compares them; the expected values are worked by hand from the ONNX operator text,
// and where ONNX Runtime 1.31.1 serves the case it gave the same values (said next to the test).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kI64 = 7;
constexpr std::int32_t kString = 8;

Tensor strings(const Shape& shape, std::vector<std::string> v) { return Tensor::from_strings(shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}
std::vector<std::string> texts(const Tensor& t) { return t.to_vector<std::string>(); }
std::vector<std::int64_t> ints(const Tensor& t) { return t.to_vector<std::int64_t>(); }

// The outputs of both engines must agree in type, shape and elements; the reference's are returned.
void expect_same(const std::vector<Tensor>& ref, const std::vector<Tensor>& opt, const std::string& what) {
  ASSERT_EQ(ref.size(), opt.size()) << what;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    EXPECT_EQ(ref[i].dtype(), opt[i].dtype()) << what;
    EXPECT_EQ(ref[i].shape(), opt[i].shape()) << what;
    if (ref[i].dtype() == DType::String) {
      EXPECT_EQ(texts(ref[i]), texts(opt[i])) << what;
    } else if (ref[i].dtype() == DType::I64) {
      EXPECT_EQ(ints(ref[i]), ints(opt[i])) << what;
    }
  }
}

std::vector<Tensor> run_both(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                             const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes = {}) {
  std::vector<Tensor> ref = run_one_node(op, opset, inputs, outputs, attributes, ExecutionMode::Exact);
  SessionOptions o;
  o.engine = EngineKind::Optimized;
  o.mode = ExecutionMode::Exact;
  Session s = Session::create(one_node_model(op, opset, inputs, outputs, attributes), o);
  expect_same(ref, s.run(feeds_of(inputs)), op);
  return ref;
}

Tensor run1(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
            std::vector<IrAttribute> attributes = {}) {
  return run_both(op, opset, inputs, {unshaped_tensor_value_info("y", kString)}, std::move(attributes)).at(0);
}

// Both engines refuse the node with `kind` and a message containing `why`.
void expect_refused(SessionErrorKind kind, const std::string& why, const std::string& op, std::int64_t opset,
                    const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes = {}) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    try {
      SessionOptions o;
      o.engine = engine;
      Session s = Session::create(one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", kString)}, attributes), o);
      s.run(feeds_of(inputs));
      ADD_FAILURE() << op << ": no error, expected one saying '" << why << "'";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

// ---- GatherND, ScatterND, ScatterElements ----

// GatherND, ScatterND and ScatterElements (reduction none): hand-worked from the ONNX text's
// formulas; ONNX Runtime 1.31.1 gives the same strings for each.
TEST(StringsMovedIndexing, GatherNDPicksTuplesAndSlices) {
  const Tensor d = strings(Shape{2, 2}, {"a", "b", "c", "d"});
  // Full tuples: data[1][0], data[0][1].
  EXPECT_EQ(texts(run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{2, 2}, {1, 0, 0, 1})}})),
            (std::vector<std::string>{"c", "b"}));
  // A one-element tuple selects the row data[1]: output shape [1, 2].
  const Tensor row = run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{1, 1}, {1})}});
  EXPECT_EQ(row.shape(), (Shape{1, 2}));
  EXPECT_EQ(texts(row), (std::vector<std::string>{"c", "d"}));
  // batch_dims 1: batch 0 takes its element 1, batch 1 its element 0.
  EXPECT_EQ(texts(run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 0})}}, {int_attr("batch_dims", 1)})),
            (std::vector<std::string>{"b", "c"}));
}

TEST(StringsMovedIndexing, ScatterNDWritesSlicesLastWins) {
  const Tensor d = strings(Shape{4}, {"a", "b", "c", "d"});
  EXPECT_EQ(texts(run1("ScatterND", 18, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 3})}, {"u", strings(Shape{2}, {"x", "z"})}})),
            (std::vector<std::string>{"a", "x", "c", "z"}));
  // Rows of a [2, 2] tensor: row 0 receives its update slice; the data input is not changed.
  const Tensor m = strings(Shape{2, 2}, {"p", "q", "r", "s"});
  EXPECT_EQ(texts(run1("ScatterND", 11, {{"d", m}, {"i", i64(Shape{1, 1}, {-2})}, {"u", strings(Shape{1, 2}, {"", "long string"})}})),
            (std::vector<std::string>{"", "long string", "r", "s"}));
  EXPECT_EQ(texts(m), (std::vector<std::string>{"p", "q", "r", "s"}));
}

TEST(StringsMovedIndexing, ScatterElementsWritesAlongTheAxis) {
  const Tensor d = strings(Shape{2, 2}, {"a", "b", "c", "d"});
  // axis 1: updates[r][c] goes to column indices[r][c] of row r.
  EXPECT_EQ(texts(run1("ScatterElements", 18, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 0})}, {"u", strings(Shape{2, 1}, {"x", "y"})}},
                       {int_attr("axis", 1)})),
            (std::vector<std::string>{"a", "x", "y", "d"}));
  EXPECT_EQ(texts(run1("ScatterElements", 13, {{"d", strings(Shape{4}, {"a", "b", "c", "d"})}, {"i", i64(Shape{2}, {1, 0})},
                                               {"u", strings(Shape{2}, {"x", "w"})}})),
            (std::vector<std::string>{"w", "x", "c", "d"}));
}

TEST(StringsMovedIndexing, ReductionsOnStringsAreRefused) {
  // ONNX defines the reductions as +, *, max and min, which have no STRING meaning here (ONNX
  // Runtime 1.31.1 refuses ScatterElements max on strings too): Unsupported, naming the type.
  expect_refused(SessionErrorKind::Unsupported, "reduction on String", "ScatterND", 18,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1, 1}, {1})}, {"u", strings(Shape{1}, {"x"})}},
                 {string_attr("reduction", "add")});
  expect_refused(SessionErrorKind::Unsupported, "reduction on String", "ScatterElements", 18,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1}, {1})}, {"u", strings(Shape{1}, {"x"})}},
                 {string_attr("reduction", "max")});
  // A bad index is still the caller's error.
  expect_refused(SessionErrorKind::InvalidInput, "outside", "GatherND", 13,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1, 1}, {2})}});
}

// ---- DepthToSpace, SpaceToDepth ----

// Hand-worked from the ONNX text's reshape/transpose formulas; the ONNX reference evaluator
// (onnx 1.23.2) gives the same (ONNX Runtime 1.31.1 has no STRING kernel for them).
TEST(StringsMovedIndexing, DepthToSpaceAndSpaceToDepth) {
  const Tensor c8 = strings(Shape{1, 8, 1, 1}, {"0", "1", "2", "3", "4", "5", "6", "7"});
  const Tensor dcr = run1("DepthToSpace", 13, {{"x", c8}}, {int_attr("blocksize", 2)});
  EXPECT_EQ(dcr.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(texts(dcr), (std::vector<std::string>{"0", "2", "4", "6", "1", "3", "5", "7"}));
  const Tensor crd = run1("DepthToSpace", 13, {{"x", c8}}, {int_attr("blocksize", 2), string_attr("mode", "CRD")});
  EXPECT_EQ(texts(crd), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));
  const Tensor s = run1("SpaceToDepth", 13, {{"x", strings(Shape{1, 2, 2, 2}, {"0", "1", "2", "3", "4", "5", "6", "7"})}},
                        {int_attr("blocksize", 2)});
  EXPECT_EQ(s.shape(), (Shape{1, 8, 1, 1}));
  EXPECT_EQ(texts(s), (std::vector<std::string>{"0", "4", "1", "5", "2", "6", "3", "7"}));
}

// ---- Pad ----

// Hand-worked from the ONNX Pad text (constant_value "by default it is 0, empty string or
// False"); edge, reflect and wrap agree with the ONNX reference evaluator. ONNX Runtime 1.31.1
// has no STRING Pad kernel.
TEST(StringsMovedPad, ConstantModeFillsWithEmptyOrTheGivenString) {
  const Tensor x = strings(Shape{3}, {"a", "b", "c"});
  EXPECT_EQ(texts(run1("Pad", 19, {{"x", x}, {"p", i64(Shape{2}, {2, 1})}})),
            (std::vector<std::string>{"", "", "a", "b", "c", ""}));
  // A negative end pad crops; constant_value gives the fill.
  EXPECT_EQ(texts(run1("Pad", 13, {{"x", x}, {"p", i64(Shape{2}, {1, -1})}, {"c", strings(Shape{}, {"pad"})}})),
            (std::vector<std::string>{"pad", "a", "b"}));
  // An axes input (opset 18): only axis 1 of a [2, 1] tensor is padded.
  EXPECT_EQ(texts(run1("Pad", 18, {{"x", strings(Shape{2, 1}, {"u", "v"})}, {"p", i64(Shape{2}, {0, 1})}, {"c", strings(Shape{}, {"-"})},
                                   {"a", i64(Shape{1}, {1})}})),
            (std::vector<std::string>{"u", "-", "v", "-"}));
}

TEST(StringsMovedPad, EdgeReflectWrapCopyElements) {
  const Tensor x = strings(Shape{3}, {"a", "b", "c"});
  const std::vector<NodeInput> in{{"x", x}, {"p", i64(Shape{2}, {2, 2})}};
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "edge")})),
            (std::vector<std::string>{"a", "a", "a", "b", "c", "c", "c"}));
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "reflect")})),
            (std::vector<std::string>{"c", "b", "a", "b", "c", "b", "a"}));
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "wrap")})),
            (std::vector<std::string>{"b", "c", "a", "b", "c", "a", "b"}));
}

TEST(StringsMovedPad, BeforeOpset13AndMixedFillAreRefused) {
  // ONNX Pad 11 does not take tensor(string): the engines' guard refuses it.
  expect_refused(SessionErrorKind::Unsupported, "String", "Pad", 11,
                 {{"x", strings(Shape{1}, {"a"})}, {"p", i64(Shape{2}, {1, 1})}});
  expect_refused(SessionErrorKind::InvalidModel, "constant_value", "Pad", 13,
                 {{"x", strings(Shape{1}, {"a"})}, {"p", i64(Shape{2}, {1, 1})}, {"c", i64(Shape{}, {0})}});
}


// ---- Unique ----

std::vector<Tensor> unique_of(const Tensor& x, std::vector<IrAttribute> attributes) {
  return run_both("Unique", 11, {{"x", x}},
                  {unshaped_tensor_value_info("y", kString), unshaped_tensor_value_info("indices", kI64),
                   unshaped_tensor_value_info("inverse", kI64), unshaped_tensor_value_info("counts", kI64)},
                  std::move(attributes));
}

// Every expected value is ONNX Runtime 1.31.1's output for the same model; sorted order is byte
// order ("\xc3\xa9", e with an acute accent in UTF-8, after "z"; "B" before "a"), which is also
// the numpy.unique order of these strings.
TEST(StringsMovedUnique, SortedAndUnsortedWithoutAxis) {
  const Tensor x = strings(Shape{8}, {"b", "a", "\xc3\xa9", "B", "", "a", "z", "b"});
  const std::vector<Tensor> s = unique_of(x, {});
  EXPECT_EQ(texts(s[0]), (std::vector<std::string>{"", "B", "a", "b", "z", "\xc3\xa9"}));
  EXPECT_EQ(ints(s[1]), (std::vector<std::int64_t>{4, 3, 1, 0, 6, 2}));
  EXPECT_EQ(ints(s[2]), (std::vector<std::int64_t>{3, 2, 5, 1, 0, 2, 4, 3}));
  EXPECT_EQ(ints(s[3]), (std::vector<std::int64_t>{1, 1, 2, 2, 1, 1}));
  const std::vector<Tensor> u = unique_of(x, {int_attr("sorted", 0)});
  EXPECT_EQ(texts(u[0]), (std::vector<std::string>{"b", "a", "\xc3\xa9", "B", "", "z"}));
  EXPECT_EQ(ints(u[1]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 6}));
  EXPECT_EQ(ints(u[2]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 1, 5, 0}));
  EXPECT_EQ(ints(u[3]), (std::vector<std::int64_t>{2, 2, 1, 1, 1, 1}));
}

TEST(StringsMovedUnique, SlicesAlongAnAxis) {
  const Tensor m = strings(Shape{3, 2}, {"b", "a", "a", "b", "b", "a"});
  const std::vector<Tensor> rows = unique_of(m, {int_attr("axis", 0)});
  EXPECT_EQ(rows[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(texts(rows[0]), (std::vector<std::string>{"a", "b", "b", "a"}));
  EXPECT_EQ(ints(rows[1]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(rows[2]), (std::vector<std::int64_t>{1, 0, 1}));
  EXPECT_EQ(ints(rows[3]), (std::vector<std::int64_t>{1, 2}));
  const std::vector<Tensor> columns = unique_of(m, {int_attr("axis", 1)});
  EXPECT_EQ(columns[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(texts(columns[0]), (std::vector<std::string>{"a", "b", "b", "a", "a", "b"}));
  EXPECT_EQ(ints(columns[1]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(columns[2]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(columns[3]), (std::vector<std::int64_t>{1, 1}));
  const std::vector<Tensor> first = unique_of(m, {int_attr("axis", 0), int_attr("sorted", 0)});
  EXPECT_EQ(texts(first[0]), (std::vector<std::string>{"b", "a", "a", "b"}));
  EXPECT_EQ(ints(first[2]), (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(ints(first[3]), (std::vector<std::int64_t>{2, 1}));
}

}  // namespace
}  // namespace onemodel
