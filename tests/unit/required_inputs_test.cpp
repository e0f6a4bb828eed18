// Required inputs (spec/errors.md section 3.1; issue 11, defect 2). For every row of the operator
// table and every ONNX schema version inside its opset range, a node that leaves out one required
// input, or gives it as "", is refused by both engines when the session is made: a typed
// InvalidModel naming the node and the input's position, never a crash while shaping. The required
// positions come from reference/engine/input_signatures.cpp, generated from onnx.defs (the ONNX
// text) by tools/gen_required_inputs.py; the kernels are not consulted. Before the fix Slice
// without `starts` or `ends` dereferenced a null input in both engines (a crash under ASan), and
// every other case here was accepted when the session was made.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "reference/engine/input_signatures.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

struct Formal {
  std::string name;
  char mark;  // ' ' required, '?' optional, '*' variadic (at least one), '#' variadic (any number)
};

std::vector<Formal> formals_of(const InputSignature& s) {
  std::vector<Formal> out;
  std::string_view rest = s.inputs;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view f = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const char last = f.back();
    if (last == '?' || last == '*' || last == '#') {
      out.push_back({std::string(f.substr(0, f.size() - 1)), last});
    } else {
      out.push_back({std::string(f), ' '});
    }
  }
  return out;
}

// A resolved model of one node `op` at `opset` whose inputs are `inputs` (each non-empty name a
// graph input of unknown shape) and whose one output is a graph output.
IrModel node_model(const std::string& op, std::int64_t opset, const std::vector<std::string>& inputs) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", opset}};
  std::set<std::string> declared;
  for (const std::string& name : inputs) {
    if (!name.empty() && declared.insert(name).second) m.graph.inputs.push_back(unshaped_tensor_value_info(name, 1));
  }
  m.graph.outputs = {unshaped_tensor_value_info("out", 1)};
  IrNode n = node(op, inputs, {"out"});
  m.graph.nodes = {n};
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

// The SessionError a session of `m` raises in `engine` when it is made, checked to be
// InvalidModel naming the node and input `position`.
void expect_refused(const IrModel& m, EngineKind engine, std::size_t position, const std::string& what) {
  SessionOptions options;
  options.engine = engine;
  options.intra_op_threads = 1;
  try {
    Session::create(m, options);
    ADD_FAILURE() << what << ": the session was made";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << what << ": " << e.message();
    EXPECT_EQ(e.node_name(), m.graph.nodes[0].op_type + "_node") << what;
    EXPECT_NE(e.message().find("input " + std::to_string(position) + " "), std::string::npos)
        << what << ": " << e.message();
  }
}

constexpr EngineKind kEngines[] = {EngineKind::Reference, EngineKind::Optimized};

// The schema versions each row of the table serves, once each, with an opset that selects it.
struct Version {
  const InputSignature* signature;
  std::int64_t opset;
};

std::vector<Version> served_versions() {
  std::vector<Version> out;
  std::set<const InputSignature*> seen;
  for (const OpDef& def : all_ops()) {
    for (int v = def.min_opset; v <= def.max_opset; ++v) {
      const InputSignature* s = find_input_signature(def.domain, def.op_type, v);
      if (s != nullptr && seen.insert(s).second) out.push_back({s, v});
    }
  }
  return out;
}

TEST(RequiredInputs, EveryOpsetOfEveryRowHasASignature) {
  for (const OpDef& def : all_ops()) {
    // The signatures cover the default domain (tools/table_schemas.py); the rows of other domains
    // (ai.onnx.preview.training) check their inputs in their own kernels.
    const std::string_view domain(def.domain);
    if (!domain.empty() && domain != "ai.onnx") continue;
    for (int v = def.min_opset; v <= def.max_opset; ++v) {
      const InputSignature* s = find_input_signature(def.domain, def.op_type, v);
      ASSERT_NE(s, nullptr) << def.op_type << " opset " << v;
      EXPECT_EQ(std::string_view(s->op), std::string_view(def.op_type));
      EXPECT_LE(s->since, v);
    }
  }
  // Spot checks against the ONNX text (Operators.md): Slice-10 takes starts and ends as
  // required inputs, Slice-1 as attributes; Resize-13 makes roi and scales optional.
  EXPECT_STREQ(find_input_signature("", "Slice", 13)->inputs, "data,starts,ends,axes?,steps?");
  EXPECT_STREQ(find_input_signature("", "Slice", 9)->inputs, "data");
  EXPECT_STREQ(find_input_signature("ai.onnx", "Resize", 13)->inputs, "X,roi?,scales?,sizes?");
  EXPECT_STREQ(find_input_signature("", "Concat", 13)->inputs, "inputs*");
  EXPECT_EQ(find_input_signature("com.example", "Slice", 13), nullptr);
  EXPECT_EQ(find_input_signature("", "NoSuchOperator", 13), nullptr);
}

TEST(RequiredInputs, EveryFormalInputPresentPassesTheCheck) {
  for (const Version& v : served_versions()) {
    std::vector<std::string> inputs;
    for (const Formal& f : formals_of(*v.signature)) inputs.push_back(f.name);
    IrNode n = node(v.signature->op, inputs, {"out"});
    n.opset = v.opset;
    EXPECT_NO_THROW(check_required_inputs(n)) << v.signature->op << "-" << v.signature->since;
  }
}

// The sweep over the whole table: each required input given as "", then left out (with every
// input after it), and, for variadic operators, no operand at all and an operand given as "".
TEST(RequiredInputs, EachRequiredInputOmittedIsInvalidModelInBothEngines) {
  std::size_t cases = 0;
  for (const Version& v : served_versions()) {
    const std::vector<Formal> formals = formals_of(*v.signature);
    std::vector<std::string> all;
    for (const Formal& f : formals) all.push_back(f.name);
    if (!formals.empty() && formals.back().mark == '*') all.push_back(formals.back().name + "_2");
    const std::string op = v.signature->op;
    for (std::size_t p = 0; p < formals.size(); ++p) {
      if (formals[p].mark == '?') continue;
      if (formals[p].mark == '#') {
        // May be left out, but an operand given must not be "".
        std::vector<std::string> blank = all;
        blank[p] = "";
        for (EngineKind engine : kEngines) {
          expect_refused(node_model(op, v.opset, blank), engine, p, op + "-" + std::to_string(v.signature->since) +
                                                                        " variadic operand " + std::to_string(p) + " as \"\"");
          ++cases;
        }
        continue;
      }
      const std::string what = op + "-" + std::to_string(v.signature->since) + " input " + std::to_string(p);
      std::vector<std::string> blank = all;
      blank[p] = "";
      std::vector<std::string> cut(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(p));
      for (EngineKind engine : kEngines) {
        expect_refused(node_model(op, v.opset, blank), engine, p, what + " as \"\"");
        expect_refused(node_model(op, v.opset, cut), engine, p, what + " left out");
        cases += 2;
      }
      if (formals[p].mark == '*') {
        std::vector<std::string> second_blank = all;
        second_blank[p + 1] = "";
        for (EngineKind engine : kEngines) {
          expect_refused(node_model(op, v.opset, second_blank), engine, p + 1, what + " second operand \"\"");
          ++cases;
        }
      }
    }
  }
  // 434 schema versions in onnx 1.23.2 for the table's rows; most have a required input.
  EXPECT_GT(cases, 1000u);
}

// The case: Slice-13 without `ends`, and with `starts` given as "", made and run in both
// engines. Before the fix the run dereferenced a null input while shaping.
TEST(RequiredInputs, SliceWithoutStartsOrEndsIsRefusedBeforeShaping) {
  const std::vector<std::vector<std::string>> cases = {{"data", "", "ends"}, {"data", "starts"}};
  const std::vector<std::size_t> positions = {1, 2};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    IrModel m;
    m.ir_version = 8;
    m.opset_imports = {{"", 13}};
    m.graph.inputs = {tensor_value_info("data", 1, {fixed_dim(4)})};
    m.graph.outputs = {unshaped_tensor_value_info("out", 1)};
    for (const std::string& name : cases[c]) {
      if (name == "starts" || name == "ends") m.graph.inputs.push_back(tensor_value_info(name, 7, {fixed_dim(1)}));
    }
    m.graph.nodes = {node("Slice", cases[c], {"out"})};
    resolve_model(m, FieldPathStyle::Onnx);
    for (EngineKind engine : kEngines) {
      SessionOptions options;
      options.engine = engine;
      try {
        Session s = Session::create(m, options);
        std::vector<std::pair<std::string, Tensor>> feeds = {
            {"data", Tensor::from_values<float>(DType::F32, Shape{4}, {1.0f, 2.0f, 3.0f, 4.0f})}};
        for (const std::string& name : cases[c]) {
          if (name == "starts" || name == "ends") {
            feeds.emplace_back(name, Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {1}));
          }
        }
        s.run(feeds);
        ADD_FAILURE() << "case " << c << " ran";
      } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.message();
        EXPECT_EQ(e.node_name(), "Slice_node");
        EXPECT_NE(e.message().find("input " + std::to_string(positions[c]) + " ('" +
                                   (positions[c] == 1 ? "starts" : "ends") + "')"),
                  std::string::npos)
            << e.message();
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
