#include "tools/golden/node_cases.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/graph/node_info.hpp"
#include "core/io/file_bytes.hpp"
#include "core/onnx/tensor_entry.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"
#include "onemodel/session_error.hpp"
#include "tools/golden/tensor_hash.hpp"

namespace onemodel::golden {
namespace {

namespace fs = std::filesystem;

// Ends a case with the marker; thrown inside run_node_case only.
struct CannotRun {
  NodeCaseOutcome outcome;
  std::string reason;
};

bool all_digits(const std::string& text) {
  return !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// test_data_set_<n> folders in numeric order.
std::vector<fs::path> data_sets(const fs::path& folder) {
  const std::string prefix = "test_data_set_";
  std::vector<std::pair<long, fs::path>> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0 || !all_digits(name.substr(prefix.size()))) continue;
    found.emplace_back(std::stol(name.substr(prefix.size())), entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> result;
  for (auto& item : found) result.push_back(std::move(item.second));
  return result;
}

struct NamedTensor {
  std::string name;  // the TensorProto's name, may be empty
  Tensor tensor;
};

// <prefix>0.pb, <prefix>1.pb, ... up to the first missing number.
std::vector<NamedTensor> read_numbered(const fs::path& folder, const std::string& prefix) {
  std::vector<NamedTensor> values;
  for (int k = 0;; ++k) {
    const fs::path file = folder / (prefix + std::to_string(k) + ".pb");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) break;
    const IrTensor ir = onnx::parse_tensor_bytes(load_file_bytes(file), file.filename().string());
    if (!dtype_is_stored(ir.data_type)) {
      throw CannotRun{NodeCaseOutcome::UnsupportedType, file.filename().string() + " has element type " +
                                                            std::string(onnx_type_name(ir.data_type))};
    }
    values.push_back({ir.name, tensor_from_ir(ir, file.filename().string())});
  }
  return values;
}

// spec/conformance.md section 4: a declared input or output sessions cannot hold ends the case.
void check_declared(const IrValueInfo& value) {
  if (value.type.kind != IrType::Kind::None && value.type.kind != IrType::Kind::Tensor) {
    throw CannotRun{NodeCaseOutcome::UnsupportedType, "value '" + value.name + "' is not a tensor"};
  }
  if (value.type.elem_type != 0 && !dtype_is_stored(value.type.elem_type)) {
    throw CannotRun{NodeCaseOutcome::UnsupportedType,
                    "value '" + value.name + "' has element type " + std::string(onnx_type_name(value.type.elem_type))};
  }
}

// spec/conformance.md section 2: a file goes to the input its TensorProto name names, else to the
// input at its position (required inputs first, then those with an initializer as default).
std::vector<std::string> input_names_for(const std::vector<NamedTensor>& files, const std::vector<std::string>& names) {
  std::vector<std::string> chosen;
  std::vector<bool> taken(names.size(), false);
  for (std::size_t k = 0; k < files.size(); ++k) {
    std::size_t slot = k;
    for (std::size_t n = 0; n < names.size(); ++n) {
      if (!files[k].name.empty() && names[n] == files[k].name) slot = n;
    }
    if (slot >= names.size() || taken[slot]) {
      throw CannotRun{NodeCaseOutcome::Error, "input file " + std::to_string(k) + " matches no input of the model"};
    }
    taken[slot] = true;
    chosen.push_back(names[slot]);
  }
  return chosen;
}

NodeCaseOutcome outcome_of(SessionErrorKind kind) {
  switch (kind) {
    case SessionErrorKind::ExactModeUnavailable: return NodeCaseOutcome::NotExact;
    case SessionErrorKind::UnsupportedOperator: return NodeCaseOutcome::UnsupportedOperator;
    case SessionErrorKind::Unsupported: return NodeCaseOutcome::UnsupportedType;
    default: return NodeCaseOutcome::Error;
  }
}

// The hash of every output of every data set, in order (node_cases.hpp).
std::string hash_case(const fs::path& folder, const SessionOptions& options, std::string& kernel_path) {
  IrModel model = import_onnx_file(folder / "model.onnx");
  for (const IrValueInfo& value : model.graph.inputs) check_declared(value);
  for (const IrValueInfo& value : model.graph.outputs) check_declared(value);
  std::vector<std::string> defaulted;
  for (const IrValueInfo& value : model.graph.inputs) {
    for (const IrTensor& initializer : model.graph.initializers) {
      if (initializer.name == value.name) {
        defaulted.push_back(value.name);
        break;
      }
    }
  }
  const Session session = Session::create(std::move(model), options);
  kernel_path = session.kernel_path();
  std::vector<std::string> names;
  for (const TensorInfo& info : session.inputs()) names.push_back(info.name);
  names.insert(names.end(), defaulted.begin(), defaulted.end());
  std::vector<std::string> output_names;
  for (const TensorInfo& info : session.outputs()) output_names.push_back(info.name);

  const std::vector<fs::path> sets = data_sets(folder);
  if (sets.empty()) throw CannotRun{NodeCaseOutcome::Error, "no test_data_set_* folder"};
  Sha256 sha;
  for (const fs::path& set : sets) {
    const std::vector<NamedTensor> files = read_numbered(set, "input_");
    const std::vector<std::string> chosen = input_names_for(files, names);
    std::vector<Tensor> inputs;
    for (const NamedTensor& file : files) inputs.push_back(file.tensor);
    std::vector<Tensor> outputs(output_names.size());
    session.run(chosen, inputs, output_names, outputs);
    for (const Tensor& output : outputs) hash_tensor_into(sha, output);
  }
  return to_hex(sha.finish());
}

}  // namespace

std::vector<fs::path> node_case_folders(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir.string() + " is not a directory");
  std::vector<fs::path> folders;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && fs::is_regular_file(entry.path() / "model.onnx", ec)) folders.push_back(entry.path());
  }
  if (folders.empty()) throw std::runtime_error(dir.string() + " holds no case folder (with model.onnx)");
  // Byte order of the names, the same on every platform (directory order is not).
  std::sort(folders.begin(), folders.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  return folders;
}

NodeCaseResult run_node_case(const fs::path& folder, SessionOptions options) {
  options.mode = ExecutionMode::Exact;
  NodeCaseResult result;
  const std::string name = "case/" + folder.filename().string();
  try {
    result.line = name + " " + hash_case(folder, options, result.kernel_path);
    result.outcome = NodeCaseOutcome::Hashed;
    return result;
  } catch (const CannotRun& e) {
    result.outcome = e.outcome;
    result.reason = e.reason;
  } catch (const SessionError& e) {
    result.outcome = outcome_of(e.kind());
    result.reason = e.message();
  } catch (const ModelError& e) {
    result.outcome = NodeCaseOutcome::Error;
    result.reason = "ModelError: " + e.describe();
  } catch (const std::exception& e) {
    result.outcome = NodeCaseOutcome::Error;
    result.reason = e.what();
  }
  result.line = name + " " + not_exact_marker();
  return result;
}

const char* outcome_name(NodeCaseOutcome outcome) noexcept {
  switch (outcome) {
    case NodeCaseOutcome::Hashed: return "hashed";
    case NodeCaseOutcome::NotExact: return "not-exact";
    case NodeCaseOutcome::UnsupportedOperator: return "unsupported-op";
    case NodeCaseOutcome::UnsupportedType: return "unsupported-type";
    case NodeCaseOutcome::Error: return "error";
  }
  return "error";
}

}  // namespace onemodel::golden
