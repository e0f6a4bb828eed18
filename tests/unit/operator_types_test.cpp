// Keeps the element-types column of the operator table honest (spec/operator-contract.md section 1,
// spec/operators.tsv): for every row the test can drive generically, infer() must accept exactly
// the listed types of the main input and refuse every other stored type with
// SessionError(Unsupported) (section 4). The expected sets are the column itself; what is checked
// against it is the kernel's own infer(), an independent source.
//
// Driven generically: unary element-wise operators (and the Softmax family) with one input,
// binary element-wise and variadic operators with two inputs of the same type, and reductions
// with one input, all of shape [2, 3], on a node without attributes. Rows whose factory refuses
// such a node, and rows of other operators, are skipped and counted as skipped, never as passing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

// Every stored element type (spec/tensors.md section 2).
const std::vector<DType> kStoredTypes = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,
                                         DType::I16, DType::I32, DType::I64, DType::U8,   DType::U16,
                                         DType::U32, DType::U64, DType::Bool, DType::String, DType::F8E4M3FN,
                                         DType::F8E4M3FNUZ, DType::F8E5M2, DType::F8E5M2FNUZ, DType::F8E8M0,
                                         DType::U4, DType::I4, DType::F4E2M1, DType::U2, DType::I2};

// One input, output of the input's shape: element-wise unary operators, and the row-wise Softmax
// family (which also takes one input of any rank from 1).
const std::set<std::string> kOneInput = {
    "Abs",     "BitwiseNot", "Ceil",      "Celu",     "Clip",       "Cos",        "Elu",      "Erf",
    "Exp",     "Floor",      "Gelu",      "HardSigmoid", "HardSwish", "IsInf",    "IsNaN",    "LeakyRelu",
    "Log",     "Mish",       "Neg",       "Not",      "Reciprocal", "Relu",       "Round",    "Selu",
    "Shrink",  "Sigmoid",    "Sign",      "Sin",      "Softplus",   "Softsign",   "Sqrt",     "Tanh",
    "ThresholdedRelu", "Identity", "Softmax", "LogSoftmax", "Hardmax", "Tan", "Asin", "Acos", "Atan",
    "Sinh",    "Cosh",       "Asinh",     "Acosh",    "Atanh",    "Swish"};

// Two inputs of the same type and shape. Mod is left out: its float types depend on the fmod
// attribute (fmod = 0 refuses them as InvalidModel), so a node without attributes cannot show them.
const std::set<std::string> kTwoInputs = {
    "Add",  "And",  "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Equal", "Greater",
    "GreaterOrEqual", "Less", "LessOrEqual", "Mul", "Or", "PRelu", "Pow", "Sub", "Xor",
    "Max",  "Min",  "Mean", "Sum"};

// One input, reduced over every axis (no axes attribute or input).
const std::set<std::string> kReductions = {
    "ReduceL1",  "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
    "ReduceProd", "ReduceSum", "ReduceSumSquare", "ArgMax", "ArgMin"};

std::size_t driven_input_count(const std::string& op) {
  if (kOneInput.count(op) || kReductions.count(op)) return 1;
  if (kTwoInputs.count(op)) return 2;
  return 0;
}

// The column parsed: `any` is every stored type; names must be dtype_name() spellings, each once.
std::set<DType> listed_types(const OpDef& def, std::string& error) {
  std::set<DType> out;
  if (def.element_types == nullptr) {
    error = "no element types stated";
    return out;
  }
  std::string text = def.element_types;
  // `any`: every stored type but String; `any String`: every stored type (spec/operator-contract.md
  // section 1).
  if (text == "any" || text == "any String") {
    for (DType t : kStoredTypes) {
      if (t != DType::String || text == "any String") out.insert(t);
    }
    return out;
  }
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const auto it = std::find_if(kStoredTypes.begin(), kStoredTypes.end(),
                                 [&](DType t) { return dtype_name(t) == word; });
    if (it == kStoredTypes.end()) {
      error = "unknown type name '" + word + "'";
      return {};
    }
    if (!out.insert(*it).second) {
      error = "type '" + word + "' listed twice";
      return {};
    }
  }
  if (out.empty()) error = "empty element types";
  return out;
}

std::string row_name(const OpDef& def) {
  return std::string(*def.domain ? def.domain : "ai.onnx") + "/" + def.op_type + " " +
         std::to_string(def.min_opset) + "-" + std::to_string(def.max_opset);
}

enum class Outcome { Accepted, Unsupported, Other };

// infer() for every driven input of `type`, shape [2, 3], values unknown.
Outcome try_infer(const OpKernel& kernel, const NodeInfo& info, std::size_t inputs, DType type,
                  std::string& message) {
  std::vector<InferInput> in(inputs);
  for (InferInput& i : in) {
    i.present = true;
    i.type = type;
    i.shape = Shape{2, 3};
  }
  std::vector<InferOutput> out(1);
  out[0].wanted = true;
  InferContext context(info, in, out);
  try {
    kernel.infer(context);
    return Outcome::Accepted;
  } catch (const SessionError& e) {
    message = std::string(to_string(e.kind())) + ": " + e.message();
    return e.kind() == SessionErrorKind::Unsupported ? Outcome::Unsupported : Outcome::Other;
  } catch (const std::exception& e) {
    message = e.what();
    return Outcome::Other;
  }
}

TEST(OperatorTypes, EveryRowStatesWellFormedTypes) {
  for (const OpDef& def : all_ops()) {
    std::string error;
    (void)listed_types(def, error);
    EXPECT_TRUE(error.empty()) << row_name(def) << ": " << error;
  }
}

TEST(OperatorTypes, DrivenFamiliesNameOperatorsOfTheTable) {
  // A misspelt name would silently move a row from checked to skipped.
  for (const auto* list : {&kOneInput, &kTwoInputs, &kReductions}) {
    for (const std::string& op : *list) {
      const bool found = std::any_of(all_ops().begin(), all_ops().end(),
                                     [&](const OpDef& def) { return op == def.op_type; });
      EXPECT_TRUE(found) << op << " is not in the operator table";
    }
  }
}

TEST(OperatorTypes, InferAcceptsExactlyTheListedTypes) {
  std::size_t checked = 0;
  std::size_t skipped_family = 0;
  std::size_t skipped_attributes = 0;
  std::vector<std::string> skipped_needing_attributes;
  for (const OpDef& def : all_ops()) {
    const std::size_t inputs = driven_input_count(def.op_type);
    if (inputs == 0) {
      ++skipped_family;
      continue;
    }
    std::string error;
    const std::set<DType> listed = listed_types(def, error);
    ASSERT_TRUE(error.empty()) << row_name(def) << ": " << error;
    std::vector<int> opsets = {def.min_opset};
    if (def.max_opset != def.min_opset) opsets.push_back(def.max_opset);
    bool row_skipped = false;
    for (const int opset : opsets) {
      IrNode node;
      node.op_type = def.op_type;
      node.domain = def.domain;
      for (std::size_t i = 0; i < inputs; ++i) node.inputs.push_back("x" + std::to_string(i));
      node.outputs = {"y"};
      const NodeInfo info(node, opset, ExecutionMode::Fast);
      std::unique_ptr<OpKernel> kernel;
      try {
        kernel = def.factory(info);
      } catch (const std::exception&) {
        kernel = nullptr;
      }
      if (!kernel) {
        row_skipped = true;
        break;  // the row is skipped, not checked at its other end
      }
      for (DType type : kStoredTypes) {
        std::string message;
        const Outcome outcome = try_infer(*kernel, info, inputs, type, message);
        const bool expected = listed.count(type) != 0;
        if (expected) {
          EXPECT_EQ(outcome, Outcome::Accepted)
              << row_name(def) << " at opset " << opset << ": listed type " << dtype_name(type)
              << " refused (" << message << ")";
        } else {
          EXPECT_EQ(outcome, Outcome::Unsupported)
              << row_name(def) << " at opset " << opset << ": unlisted type " << dtype_name(type) << " "
              << (outcome == Outcome::Accepted ? "accepted" : "refused other than as Unsupported (" + message + ")");
        }
      }
    }
    if (row_skipped) {
      ++skipped_attributes;
      skipped_needing_attributes.push_back(row_name(def));
    } else {
      ++checked;
    }
  }
  const std::size_t skipped = skipped_family + skipped_attributes;
  std::cout << "operator types: " << checked << " rows checked, " << skipped << " skipped (" << skipped_family
            << " outside the driven families, " << skipped_attributes << " whose factory needs attributes";
  for (const std::string& name : skipped_needing_attributes) std::cout << "; " << name;
  std::cout << ") of " << all_ops().size() << " rows\n";
  EXPECT_EQ(checked + skipped, all_ops().size());
  // The driven families hold many rows; a change that silently skipped them all must not pass.
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace onemodel
