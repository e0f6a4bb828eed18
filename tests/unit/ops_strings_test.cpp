// The string operators (spec/ops/strings.md) and LabelEncoder (spec/ops/ml.md section 4).
// Expected values are worked by hand from the ONNX operator text (and, for Cast's text forms,
// from ONNX Runtime 1.31.1's output, quoted next to the test); refusals are checked for their
// kind and message.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "reference/ops/re2_subset.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kF32 = 1;
constexpr std::int32_t kI64 = 7;
constexpr std::int32_t kString = 8;
constexpr std::int32_t kBool = 9;

Tensor strings(const Shape& shape, std::vector<std::string> v) { return Tensor::from_strings(shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}
Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

std::vector<Tensor> run_both(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                             const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes) {
  // Reference engine in exact mode, then the optimized engine must give the same elements.
  std::vector<Tensor> ref = run_one_node(op, opset, inputs, outputs, attributes, ExecutionMode::Exact);
  SessionOptions o;
  o.engine = EngineKind::Optimized;
  o.mode = ExecutionMode::Exact;
  Session s = Session::create(one_node_model(op, opset, inputs, outputs, attributes), o);
  std::vector<Tensor> opt = s.run(feeds_of(inputs));
  EXPECT_EQ(ref.size(), opt.size());
  for (std::size_t i = 0; i < ref.size() && i < opt.size(); ++i) {
    EXPECT_EQ(ref[i].dtype(), opt[i].dtype());
    EXPECT_EQ(ref[i].shape(), opt[i].shape());
    if (ref[i].dtype() == DType::String) {
      EXPECT_EQ(ref[i].to_vector<std::string>(), opt[i].to_vector<std::string>()) << op;
    }
  }
  return ref;
}

Tensor run1(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs, std::int32_t out,
            std::vector<IrAttribute> attributes = {}) {
  return run_both(op, opset, inputs, {unshaped_tensor_value_info("y", out)}, std::move(attributes)).at(0);
}

void expect_refused(SessionErrorKind kind, const std::string& why, const std::string& op, std::int64_t opset,
                    const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes, std::int32_t out) {
  try {
    run_one_node(op, opset, inputs, {unshaped_tensor_value_info("y", out)}, std::move(attributes), ExecutionMode::Fast);
    ADD_FAILURE() << op << ": no error, expected one saying '" << why << "'";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

std::vector<std::uint8_t> bools(const Tensor& t) { return t.to_vector<std::uint8_t>(); }
std::vector<std::string> texts(const Tensor& t) { return t.to_vector<std::string>(); }

// ---- Equal (section 2) ----

TEST(StringEqual, ComparesBytesWithBroadcasting) {
  const Tensor y = run1("Equal", 19, {{"a", strings(Shape{2, 2}, {"x", "y", "", "X"})}, {"b", strings(Shape{2}, {"x", "y"})}}, kBool);
  EXPECT_EQ(bools(y), (std::vector<std::uint8_t>{1, 1, 0, 0}));
}

TEST(StringEqual, BeforeOpset19AndMixedTypesAreRefused) {
  // Before opset 19 the kernel does not serve strings: the engines' guard refuses the input.
  expect_refused(SessionErrorKind::Unsupported, "String", "Equal", 13,
                 {{"a", strings(Shape{1}, {"x"})}, {"b", strings(Shape{1}, {"x"})}}, {}, kBool);
  expect_refused(SessionErrorKind::InvalidModel, "STRING only with STRING", "Equal", 19,
                 {{"a", strings(Shape{1}, {"1"})}, {"b", i64(Shape{1}, {1})}}, {}, kBool);
}

// ---- Shape and indexing operators move strings (spec/tensors.md section 8) ----
// Hand-worked from the ONNX operator text; run_both also checks the optimized engine, whose
// Transpose, Slice and Where overrides hand STRING to the reference kernel.

Tensor bools_of(const Shape& shape, std::vector<std::uint8_t> v) {
  return Tensor::from_values<std::uint8_t>(DType::Bool, shape, v);
}

TEST(StringsMoved, TransposeSliceExpandTile) {
  const Tensor x = strings(Shape{2, 3}, {"a", "b", "c", "d", "e", "f"});
  const Tensor t = run1("Transpose", 21, {{"x", x}}, kString);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(texts(t), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
  // Slice axis 1 from 2 down to 0 (exclusive) step -1: columns 2, 1.
  const Tensor sl = run1("Slice", 13, {{"x", x}, {"starts", i64(Shape{1}, {2})}, {"ends", i64(Shape{1}, {0})},
                                       {"axes", i64(Shape{1}, {1})}, {"steps", i64(Shape{1}, {-1})}}, kString);
  EXPECT_EQ(sl.shape(), (Shape{2, 2}));
  EXPECT_EQ(texts(sl), (std::vector<std::string>{"c", "b", "f", "e"}));
  const Tensor e = run1("Expand", 13, {{"x", strings(Shape{2, 1}, {"p", "q"})}, {"shape", i64(Shape{2}, {2, 2})}}, kString);
  EXPECT_EQ(texts(e), (std::vector<std::string>{"p", "p", "q", "q"}));
  const Tensor ti = run1("Tile", 13, {{"x", strings(Shape{2}, {"u", ""})}, {"repeats", i64(Shape{1}, {2})}}, kString);
  EXPECT_EQ(texts(ti), (std::vector<std::string>{"u", "", "u", ""}));
}

TEST(StringsMoved, WhereSplitCompressGatherElementsReverseSequence) {
  const Tensor w = run1("Where", 16, {{"c", bools_of(Shape{2, 1}, {1, 0})}, {"x", strings(Shape{1, 2}, {"x0", "x1"})},
                                      {"z", strings(Shape{}, {"y"})}}, kString);
  EXPECT_EQ(w.shape(), (Shape{2, 2}));
  EXPECT_EQ(texts(w), (std::vector<std::string>{"x0", "x1", "y", "y"}));
  std::vector<Tensor> parts = run_both("Split", 18, {{"x", strings(Shape{2, 2}, {"a", "b", "c", "d"})}},
                                       {unshaped_tensor_value_info("p", kString), unshaped_tensor_value_info("q", kString)},
                                       {int_attr("axis", 1), int_attr("num_outputs", 2)});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(texts(parts[0]), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(texts(parts[1]), (std::vector<std::string>{"b", "d"}));
  const Tensor c = run1("Compress", 11, {{"x", strings(Shape{3}, {"k", "l", "m"})}, {"c", bools_of(Shape{3}, {1, 0, 1})}},
                        kString, {int_attr("axis", 0)});
  EXPECT_EQ(texts(c), (std::vector<std::string>{"k", "m"}));
  const Tensor g = run1("GatherElements", 13, {{"x", strings(Shape{2, 2}, {"a", "b", "c", "d"})},
                                               {"i", i64(Shape{2, 2}, {1, 0, 0, 0})}}, kString, {int_attr("axis", 1)});
  EXPECT_EQ(texts(g), (std::vector<std::string>{"b", "a", "c", "c"}));
  // time axis 0, batch axis 1: batch 0 reverses its first 2 steps, batch 1 its first 1.
  const Tensor r = run1("ReverseSequence", 10, {{"x", strings(Shape{2, 2}, {"t0b0", "t0b1", "t1b0", "t1b1"})},
                                                 {"lens", i64(Shape{2}, {2, 1})}}, kString);
  EXPECT_EQ(texts(r), (std::vector<std::string>{"t1b0", "t0b1", "t0b0", "t1b1"}));
}

TEST(StringsMoved, ShapeAndSizeReadOnlyTheShape) {
  const Tensor x = strings(Shape{2, 3}, {"a", "b", "c", "d", "e", "f"});
  EXPECT_EQ(run1("Shape", 15, {{"x", x}}, kI64).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(run1("Size", 13, {{"x", x}}, kI64).to_vector<std::int64_t>(), (std::vector<std::int64_t>{6}));
}

// ---- StringConcat (section 3) ----

TEST(StringConcat, JoinsWithBroadcastingAndScalars) {
  const Tensor y = run1("StringConcat", 20, {{"a", strings(Shape{2, 1}, {"a", "\xc3\xa9"})}, {"b", strings(Shape{3}, {"1", "", "22"})}}, kString);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(texts(y), (std::vector<std::string>{"a1", "a", "a22", "\xc3\xa9" "1", "\xc3\xa9", "\xc3\xa9" "22"}));
  const Tensor s = run1("StringConcat", 20, {{"a", strings(Shape{}, {"cat"})}, {"b", strings(Shape{}, {"s"})}}, kString);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"cats"}));
}

// ---- StringSplit (section 4) ----

TEST(StringSplit, DelimiterMaxsplitAndWhitespace) {
  std::vector<Tensor> y = run_both("StringSplit", 20, {{"x", strings(Shape{3}, {"a,,b", "", "c"})}},
                                   {unshaped_tensor_value_info("y", kString), unshaped_tensor_value_info("n", kI64)},
                                   {string_attr("delimiter", ",")});
  EXPECT_EQ(y[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(texts(y[0]), (std::vector<std::string>{"a", "", "b", "", "", "", "c", "", ""}));
  EXPECT_EQ(y[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 1, 1}));
  // Whitespace form with maxsplit 1: leading space dropped, the rest keeps its trailing space.
  y = run_both("StringSplit", 20, {{"x", strings(Shape{2}, {"  p  q r ", " \t "})}},
               {unshaped_tensor_value_info("y", kString), unshaped_tensor_value_info("n", kI64)},
               {int_attr("maxsplit", 1)});
  EXPECT_EQ(texts(y[0]), (std::vector<std::string>{"p", "q r ", "", ""}));
  EXPECT_EQ(y[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0}));
}

TEST(StringSplit, NegativeMaxsplitIsInvalid) {
  expect_refused(SessionErrorKind::InvalidModel, "maxsplit", "StringSplit", 20, {{"x", strings(Shape{1}, {"a"})}},
                 {int_attr("maxsplit", -1)}, kString);
}

// ---- StringNormalizer (section 5) ----

TEST(StringNormalizer, StopWordsThenCase) {
  const Tensor y = run1("StringNormalizer", 10, {{"x", strings(Shape{1, 4}, {"Monday", "tuesday", "MONDAY", "x1"})}},
                        kString, {strings_attr("stopwords", {"monday"}), string_attr("case_change_action", "UPPER")});
  EXPECT_EQ(y.shape(), (Shape{1, 2}));
  EXPECT_EQ(texts(y), (std::vector<std::string>{"TUESDAY", "X1"}));
  const Tensor sensitive = run1("StringNormalizer", 10, {{"x", strings(Shape{3}, {"Monday", "monday", "b"})}}, kString,
                                {strings_attr("stopwords", {"monday"}), int_attr("is_case_sensitive", 1),
                                 string_attr("case_change_action", "LOWER")});
  EXPECT_EQ(texts(sensitive), (std::vector<std::string>{"monday", "b"}));
  const Tensor none = run1("StringNormalizer", 10, {{"x", strings(Shape{2}, {"a", "A"})}}, kString,
                           {strings_attr("stopwords", {"a"})});
  EXPECT_EQ(none.shape(), (Shape{1}));
  EXPECT_EQ(texts(none), (std::vector<std::string>{""}));
}

TEST(StringNormalizer, RefusesWhatItCannotDo) {
  expect_refused(SessionErrorKind::Unsupported, "ASCII", "StringNormalizer", 10, {{"x", strings(Shape{1}, {"\xc3\xa9t\xc3\xa9"})}},
                 {string_attr("case_change_action", "UPPER")}, kString);
  expect_refused(SessionErrorKind::InvalidModel, "[1, C]", "StringNormalizer", 10, {{"x", strings(Shape{2, 2}, {"a", "b", "c", "d"})}},
                 {}, kString);
  expect_refused(SessionErrorKind::Unsupported, "locale", "StringNormalizer", 10, {{"x", strings(Shape{1}, {"a"})}},
                 {string_attr("locale", "tr_TR")}, kString);
  expect_refused(SessionErrorKind::InvalidModel, "case_change_action", "StringNormalizer", 10, {{"x", strings(Shape{1}, {"a"})}},
                 {string_attr("case_change_action", "TITLE")}, kString);
}

// ---- RegexFullMatch (section 6) ----

bool matches(const std::string& pattern, const std::string& text) {
  re2s::Program p;
  re2s::PatternError e;
  EXPECT_TRUE(re2s::compile(pattern, p, e)) << pattern << ": " << e.message;
  return re2s::full_match(p, text);
}

TEST(RegexSubset, HandWorkedMatches) {
  EXPECT_TRUE(matches("www\\.[\\w.-]+\\.\\bcom\\b", "www.google.com"));
  EXPECT_FALSE(matches("www\\.[\\w.-]+\\.\\bcom\\b", "www.bbc.co.uk"));
  EXPECT_TRUE(matches("(\\W|^)[\\w.\\-]{0,25}@(yahoo|gmail)\\.com(\\W|$)", "account@gmail.com"));
  EXPECT_FALSE(matches("(\\W|^)[\\w.\\-]{0,25}@(yahoo|gmail)\\.com(\\W|$)", "account@hotmail.com"));
  EXPECT_TRUE(matches("", ""));
  EXPECT_FALSE(matches("", "a"));
  EXPECT_TRUE(matches("a{2,3}", "aaa"));
  EXPECT_FALSE(matches("a{2,3}", "aaaa"));
  EXPECT_FALSE(matches("a{2,3}", "a"));
  EXPECT_TRUE(matches("[^abc]x", "\nx"));   // a negated class matches newline (RE2)
  EXPECT_FALSE(matches(".x", "\nx"));       // '.' does not
  EXPECT_TRUE(matches("(?:ab|a)*b", "aabab"));
  EXPECT_TRUE(matches("x*?y+?", "xxyy"));
  EXPECT_TRUE(matches("\\d\\s\\w", "1 _"));
  EXPECT_FALSE(matches("\\d\\s\\w", "1\v_"));  // \s is [\t\n\f\r ] in RE2
  EXPECT_TRUE(matches("a{,2}", "a{,2}"));      // not a repetition: literal braces
  EXPECT_TRUE(matches("\\Aab\\z", "ab"));
  EXPECT_TRUE(matches("[]a]+", "]a]"));
  EXPECT_TRUE(matches("a\\Bb", "ab"));
  EXPECT_FALSE(matches("a\\bb", "ab"));
}

TEST(RegexSubset, RefusesOutsideTheSubset) {
  for (const char* unsupported : {"(?i)a", "(?P<n>a)", "\\pL", "[[:alpha:]]", "\\1", "\\x41", "\xc3\xa9", "a{1001}"}) {
    re2s::Program p;
    re2s::PatternError e;
    EXPECT_FALSE(re2s::compile(unsupported, p, e)) << unsupported;
  }
  for (const char* invalid : {"(a", "a)", "*a", "a**", "[a", "[z-a]", "a\\", "a{3,2}"}) {
    re2s::Program p;
    re2s::PatternError e;
    EXPECT_FALSE(re2s::compile(invalid, p, e)) << invalid;
    EXPECT_TRUE(e.invalid) << invalid << ": " << e.message;
  }
  re2s::Program p;
  re2s::PatternError e;
  EXPECT_FALSE(re2s::compile(std::string(1025, 'a'), p, e));
  EXPECT_FALSE(e.invalid);
  EXPECT_FALSE(re2s::compile("(((a{1000}){1000}))", p, e));  // too many states once expanded
  EXPECT_FALSE(e.invalid);
}

// The classic catastrophic pattern of backtracking matchers runs in linear time here. No timing
// is asserted (speed is measured by benchmarks): the test only has to finish.
TEST(RegexSubset, NestedQuantifiersDoNotBacktrack) {
  EXPECT_FALSE(matches("(a+)+b", std::string(20000, 'a')));
  EXPECT_TRUE(matches("(a|aa)*c", std::string(20000, 'a') + "c"));
}

TEST(RegexFullMatch, ElementsAndRefusals) {
  const Tensor y = run1("RegexFullMatch", 20, {{"x", strings(Shape{3}, {"ab1", "ab", "\xc3\xa9"})}}, kBool,
                        {string_attr("pattern", "ab\\d?")});
  EXPECT_EQ(bools(y), (std::vector<std::uint8_t>{1, 1, 0}));
  expect_refused(SessionErrorKind::Unsupported, "0x80", "RegexFullMatch", 20, {{"x", strings(Shape{1}, {"\xc3\xa9"})}},
                 {string_attr("pattern", ".*")}, kBool);
  expect_refused(SessionErrorKind::InvalidModel, "not valid RE2", "RegexFullMatch", 20, {{"x", strings(Shape{1}, {"a"})}},
                 {string_attr("pattern", "(a")}, kBool);
  expect_refused(SessionErrorKind::Unsupported, "pattern", "RegexFullMatch", 20, {{"x", strings(Shape{1}, {"a"})}},
                 {string_attr("pattern", "(?i)a")}, kBool);
}

// ---- Cast to and from STRING (section 1) ----

// ONNX Runtime 1.31.1 wrote these for the same float32 inputs (tools: onnxruntime Cast FLOAT ->
// STRING): '0', '-0', '1', '0.1', '0.33333334', '9.9999997e-06', '1e+08', '1.2345679e+08', 'NaN',
// 'INF', '-INF', '1.4012985e-45', '16777216'.
TEST(CastString, NumbersToTextAsOnnxRuntime) {
  const Tensor y = run1("Cast", 21, {{"x", f32(Shape{13}, {0.0f, -0.0f, 1.0f, 0.1f, 1.0f / 3.0f, 1e-5f, 1e8f, 123456789.0f,
                                                            std::numeric_limits<float>::quiet_NaN(),
                                                            std::numeric_limits<float>::infinity(),
                                                            -std::numeric_limits<float>::infinity(), 1e-45f, 16777216.0f})}},
                        kString, {int_attr("to", kString)});
  EXPECT_EQ(texts(y), (std::vector<std::string>{"0", "-0", "1", "0.1", "0.33333334", "9.9999997e-06", "1e+08",
                                                "1.2345679e+08", "NaN", "INF", "-INF", "1.4012985e-45", "16777216"}));
  const Tensor n = run1("Cast", 21, {{"x", i64(Shape{2}, {-9223372036854775807LL - 1, 42})}}, kString, {int_attr("to", kString)});
  EXPECT_EQ(texts(n), (std::vector<std::string>{"-9223372036854775808", "42"}));
}

TEST(CastString, TextToNumbers) {
  const Tensor y = run1("Cast", 21, {{"x", strings(Shape{7}, {"1.5", " 2 ", "3e2", "-inf", "NaN", "1e40", "-0"})}}, kF32,
                        {int_attr("to", kF32)});
  const std::vector<float> v = y.to_vector<float>();
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 2.0f);
  EXPECT_EQ(v[2], 300.0f);
  EXPECT_EQ(v[3], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_EQ(v[5], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(v[6] == 0.0f && std::signbit(v[6]));
  // Integers: a literal wraps as integer casts do (2^64 + 5 -> 5); a float literal truncates.
  const Tensor n = run1("Cast", 21, {{"x", strings(Shape{3}, {"18446744073709551621", "-7", "100.9"})}}, kI64,
                        {int_attr("to", kI64)});
  EXPECT_EQ(n.to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, -7, 100}));
  expect_refused(SessionErrorKind::InvalidInput, "not a number", "Cast", 21, {{"x", strings(Shape{1}, {"12abc"})}},
                 {int_attr("to", kF32)}, kF32);
}

// ---- TfIdfVectorizer (section 7) ----

// ONNX's example: pool [94, 17, 17, 36], counts [0, 0]... here a small pool worked by hand:
// 1-grams {2, 3}, 2-grams {(2, 3), (3, 2)}; input [2, 3, 2, 3] with skips up to 1.
TEST(TfIdfVectorizer, CountsWithSkipsAndWeights) {
  const std::vector<IrAttribute> common = {int_attr("min_gram_length", 1), int_attr("max_gram_length", 2),
                                           int_attr("max_skip_count", 1), ints_attr("pool_int64s", {2, 3, 2, 3, 3, 2}),
                                           ints_attr("ngram_counts", {0, 2}), ints_attr("ngram_indexes", {0, 1, 2, 3})};
  std::vector<IrAttribute> tf = common;
  tf.push_back(string_attr("mode", "TF"));
  // 1-grams: 2 twice, 3 twice. Skip 0 pairs: (2,3) (3,2) (2,3); skip 1 pairs: (2,2) (3,3).
  const Tensor y = run1("TfIdfVectorizer", 9, {{"x", i64(Shape{4}, {2, 3, 2, 3})}}, kF32, tf);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2.0f, 2.0f, 2.0f, 1.0f}));
  std::vector<IrAttribute> idf = common;
  idf.push_back(string_attr("mode", "IDF"));
  idf.push_back(floats_attr("weights", {0.5f, 1.0f, 2.0f, 4.0f}));
  const Tensor z = run1("TfIdfVectorizer", 9, {{"x", i64(Shape{2, 2}, {2, 2, 9, 9})}}, kF32, idf);
  // Row 0: 1-gram 2 twice -> 0.5; no pool 2-gram (2,2). Row 1: nothing.
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0.5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}));
  std::vector<IrAttribute> strings_pool = {int_attr("min_gram_length", 2), int_attr("max_gram_length", 2),
                                           int_attr("max_skip_count", 0), strings_attr("pool_strings", {"a", "b"}),
                                           ints_attr("ngram_counts", {0, 0}), ints_attr("ngram_indexes", {1}),
                                           string_attr("mode", "TFIDF"), floats_attr("weights", {3.0f})};
  const Tensor w = run1("TfIdfVectorizer", 9, {{"x", strings(Shape{3}, {"a", "b", "a"})}}, kF32, strings_pool);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0.0f, 3.0f}));
}

TEST(TfIdfVectorizer, BadPoolsAreInvalid) {
  expect_refused(SessionErrorKind::InvalidModel, "whole n-grams", "TfIdfVectorizer", 9, {{"x", i64(Shape{1}, {1})}},
                 {int_attr("min_gram_length", 1), int_attr("max_gram_length", 2), int_attr("max_skip_count", 0),
                  ints_attr("pool_int64s", {1, 2, 3}), ints_attr("ngram_counts", {0, 2}), ints_attr("ngram_indexes", {0, 1}),
                  string_attr("mode", "TF")},
                 kF32);
  expect_refused(SessionErrorKind::InvalidModel, "mode", "TfIdfVectorizer", 9, {{"x", i64(Shape{1}, {1})}},
                 {int_attr("min_gram_length", 1), int_attr("max_gram_length", 1), int_attr("max_skip_count", 0),
                  ints_attr("pool_int64s", {1}), ints_attr("ngram_counts", {0}), ints_attr("ngram_indexes", {0}),
                  string_attr("mode", "BM25")},
                 kF32);
}

// ---- LabelEncoder (spec/ops/ml.md section 4) ----

Tensor label_encode(std::int64_t opset, const Tensor& x, std::int32_t out, std::vector<IrAttribute> attributes) {
  IrModel m;
  m.ir_version = 9;
  m.opset_imports = {{"", 21}, {"ai.onnx.ml", opset}};
  m.graph.inputs = {fixed_tensor_value_info("x", static_cast<std::int32_t>(x.dtype()), x.shape())};
  IrNode n = node("LabelEncoder", {"x"}, {"y"});
  n.domain = "ai.onnx.ml";
  n.attributes = std::move(attributes);
  m.graph.nodes = {n};
  m.graph.outputs = {unshaped_tensor_value_info("y", out)};
  resolve_model(m, FieldPathStyle::Onnx);
  Tensor result;
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SessionOptions o;
    o.engine = engine;
    o.mode = ExecutionMode::Exact;
    Session s = Session::create(m, o);
    result = s.run({{"x", x}}).at(0);
  }
  return result;
}

IrAttribute tensor_attr(const std::string& name, IrTensor t) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Tensor;
  t.name = name;
  a.tensors = {std::move(t)};
  return a;
}

TEST(LabelEncoder, StringsToIntsWithDefault) {
  const Tensor y = label_encode(2, strings(Shape{5}, {"Dori", "Amy", "Amy", "Sally", "Sally"}), kI64,
                                {strings_attr("keys_strings", {"Amy", "Sally"}), ints_attr("values_int64s", {5, 6}),
                                 int_attr("default_int64", -1)});
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 5, 5, 6, 6}));
  // Version 4, repeated key: the last value wins; no default given: ONNX's "_Unused".
  const Tensor z = label_encode(4, i64(Shape{3}, {1, 2, 3}), kString,
                                {ints_attr("keys_int64s", {1, 2, 1}), strings_attr("values_strings", {"a", "b", "c"})});
  EXPECT_EQ(texts(z), (std::vector<std::string>{"c", "b", "_Unused"}));
}

TEST(LabelEncoder, TensorAttributesAndFloatKeys) {
  IrTensor keys;
  keys.data_type = kString;
  keys.dims = {2};
  keys.strings = {"a", "b"};
  IrTensor values;
  values.data_type = 5;  // int16
  values.dims = {2};
  static const std::int16_t kValues[2] = {7, -8};
  values.data = ByteView{reinterpret_cast<const std::byte*>(kValues), sizeof kValues, nullptr};
  IrTensor fallback;
  fallback.data_type = 5;
  fallback.dims = {1};
  static const std::int16_t kDefault[1] = {42};
  fallback.data = ByteView{reinterpret_cast<const std::byte*>(kDefault), sizeof kDefault, nullptr};
  const Tensor y = label_encode(4, strings(Shape{3}, {"b", "z", "a"}), 5,
                                {tensor_attr("keys_tensor", keys), tensor_attr("values_tensor", values),
                                 tensor_attr("default_tensor", fallback)});
  EXPECT_EQ(y.to_vector<std::int16_t>(), (std::vector<std::int16_t>{-8, 42, 7}));
  // Version 4: every NaN finds a NaN key; -0 finds 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor f = label_encode(4, f32(Shape{3}, {-nan, -0.0f, 1.0f}), kI64,
                                {floats_attr("keys_floats", {nan, 0.0f}), ints_attr("values_int64s", {10, 20})});
  EXPECT_EQ(f.to_vector<std::int64_t>(), (std::vector<std::int64_t>{10, 20, -1}));
}

TEST(LabelEncoder, Version1BothDirections) {
  const Tensor y = label_encode(1, strings(Shape{3}, {"b", "a", "q"}), kI64,
                                {strings_attr("classes_strings", {"a", "b"}), int_attr("default_int64", 9)});
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 9}));
  const Tensor z = label_encode(1, i64(Shape{3}, {1, 0, 5}), kString,
                                {strings_attr("classes_strings", {"a", "b"}), string_attr("default_string", "?")});
  EXPECT_EQ(texts(z), (std::vector<std::string>{"b", "a", "?"}));
}

TEST(LabelEncoder, MismatchedListsAreInvalid) {
  try {
    (void)label_encode(2, strings(Shape{1}, {"a"}), kI64,
                       {strings_attr("keys_strings", {"a", "b"}), ints_attr("values_int64s", {1})});
    ADD_FAILURE() << "no error";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
  }
}

}  // namespace
}  // namespace onemodel
