#include "core/conformance/case_runner.hpp"

#include <algorithm>
#include <new>
#include <set>
#include <system_error>
#include <utility>

#include "core/conformance/compare.hpp"
#include "core/graph/node_info.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/io/file_bytes.hpp"
#include "core/onnx/tensor_entry.hpp"
#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::conformance {
namespace {

namespace fs = std::filesystem;

// Thrown inside run_case to end the case with a status other than fail.
struct CaseEnd {
  CaseStatus status;
  std::string reason;
};

void collect_operators(const IrGraph& graph, std::set<std::string>& names) {
  for (const IrNode& node : graph.nodes) {
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    names.insert(default_domain ? node.op_type : node.domain + "." + node.op_type);
    for (const IrAttribute& attribute : node.attributes) {
      for (const IrGraph& sub : attribute.graphs) collect_operators(sub, names);
    }
  }
}

const char* kind_text(IrType::Kind kind) {
  switch (kind) {
    case IrType::Kind::Sequence: return "a sequence";
    case IrType::Kind::Optional: return "an optional";
    case IrType::Kind::Map: return "a map";
    case IrType::Kind::SparseTensor: return "a sparse tensor";
    case IrType::Kind::Opaque: return "an opaque value";
    default: return "a tensor";
  }
}

// spec/conformance.md section 4: a graph input or output whose value the library cannot hold
// makes the case unsupported-type before anything is created.
void check_declared_value(const IrValueInfo& value) {
  const IrType& type = value.type;
  if (type.kind == IrType::Kind::None) return;
  if (type.kind != IrType::Kind::Tensor) {
    throw CaseEnd{CaseStatus::UnsupportedType, "value '" + value.name + "' is " + kind_text(type.kind) +
                                                   "; sessions take tensor values only (so far)"};
  }
  if (type.elem_type != 0 && !dtype_is_stored(type.elem_type)) {
    throw CaseEnd{CaseStatus::UnsupportedType, "value '" + value.name + "' has element type " +
                                                   std::string(onnx_type_name(type.elem_type))};
  }
}

// input_0.pb, input_1.pb, ... in numeric order; stops at the first missing number.
std::vector<fs::path> numbered_files(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int k = 0;; ++k) {
    fs::path file = folder / (prefix + std::to_string(k) + ".pb");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) break;
    files.push_back(std::move(file));
  }
  return files;
}

std::vector<fs::path> data_set_folders(const fs::path& folder) {
  std::vector<std::pair<long long, fs::path>> found;
  const std::string prefix = "test_data_set_";
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind(prefix, 0) != 0) continue;
    const std::string number = name.substr(prefix.size());
    if (number.empty() || number.size() > 9 || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    found.emplace_back(std::stoll(number), entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> folders;
  for (auto& [number, path] : found) folders.push_back(std::move(path));
  return folders;
}

struct NamedValue {
  std::string name;  // TensorProto.name, may be empty
  Tensor tensor;
};

NamedValue read_value(const fs::path& file) {
  const ByteView bytes = load_file_bytes(file);
  const IrTensor ir = onnx::parse_tensor_bytes(bytes, file.string());
  if (!dtype_is_stored(ir.data_type)) {
    throw CaseEnd{CaseStatus::UnsupportedType, file.filename().string() + " has element type " +
                                                   std::string(onnx_type_name(ir.data_type))};
  }
  return NamedValue{ir.name, tensor_from_ir(ir, file.filename().string())};
}

// spec/conformance.md section 2: a file is matched by its TensorProto name when that names one
// of `names`, else by position.
std::vector<std::size_t> match_files(const std::vector<NamedValue>& values, const std::vector<std::string>& names,
                                     const std::string& what) {
  std::vector<std::size_t> slots;
  std::vector<bool> taken(names.size(), false);
  for (std::size_t k = 0; k < values.size(); ++k) {
    std::size_t slot = names.size();
    for (std::size_t n = 0; n < names.size(); ++n) {
      if (!values[k].name.empty() && names[n] == values[k].name) slot = n;
    }
    if (slot == names.size()) slot = k;
    if (slot >= names.size() || taken[slot]) {
      throw CaseEnd{CaseStatus::Fail, what + " file " + std::to_string(k) + " matches no " + what + " of the model"};
    }
    taken[slot] = true;
    slots.push_back(slot);
  }
  return slots;
}

std::string twin_name(const SessionOptions& options) {
  return std::string(options.engine == EngineKind::Reference ? "reference" : "optimized") + " engine at " +
         std::to_string(options.intra_op_threads) + " thread" + (options.intra_op_threads == 1 ? "" : "s");
}

// Empty when equal bit for bit, else where they first differ.
std::string bit_difference(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return "element types differ";
  if (!(a.shape() == b.shape())) return "shapes " + a.shape().to_string() + " and " + b.shape().to_string();
  const Tensor ca = a.contiguous();
  const Tensor cb = b.contiguous();
  const auto x = tensor_bytes(ca);
  const auto y = tensor_bytes(cb);
  const std::size_t width = std::max<std::size_t>(1, dtype_size(a.dtype()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] != y[i]) return "element " + std::to_string(i / width) + " differs";
  }
  return {};
}

const KnownDifference* known_for(std::span<const KnownDifference> known, const std::string& output) {
  for (const KnownDifference& entry : known) {
    if (entry.output == output) return &entry;
  }
  return nullptr;
}

// Runs one data set. Outputs that miss the recorded data but are covered by their known
// difference are appended to `covered`; anything else that fails throws CaseEnd.
void run_data_set(const Session& session, const std::vector<std::string>& defaulted_inputs, const fs::path& folder,
                  std::span<const Session> twins, std::span<const SessionOptions> twin_options,
                  std::span<const KnownDifference> known, std::vector<std::string>& covered) {
  std::vector<NamedValue> inputs;
  for (const fs::path& file : numbered_files(folder, "input_")) inputs.push_back(read_value(file));
  std::vector<NamedValue> expected;
  for (const fs::path& file : numbered_files(folder, "output_")) expected.push_back(read_value(file));

  std::vector<std::string> input_names;
  for (const TensorInfo& info : session.inputs()) input_names.push_back(info.name);
  input_names.insert(input_names.end(), defaulted_inputs.begin(), defaulted_inputs.end());
  std::vector<std::string> output_names;
  for (const TensorInfo& info : session.outputs()) output_names.push_back(info.name);
  if (expected.size() != output_names.size()) {
    throw CaseEnd{CaseStatus::Fail, "the model has " + std::to_string(output_names.size()) + " outputs, the data set " +
                                        std::to_string(expected.size())};
  }
  // Positions count the required inputs (those without an initializer of the same name), as the
  // ONNX backend runner does; inputs with a default follow and can be matched by name.
  const std::vector<std::size_t> input_slots = match_files(inputs, input_names, "input");
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    names.push_back(input_names[input_slots[k]]);
    tensors.push_back(inputs[k].tensor);
  }
  std::vector<Tensor> results(output_names.size());
  session.run(names, tensors, output_names, results);
  const std::vector<std::size_t> output_slots = match_files(expected, output_names, "output");
  // The recorded data first, remembering the first miss instead of ending the case: the twins
  // below must run on every data set that produced outputs (a wrong kernel that is also
  // thread-dependent would otherwise hide its second defect behind the first).
  std::string miss;
  for (std::size_t k = 0; k < expected.size() && miss.empty(); ++k) {
    const std::size_t slot = output_slots[k];
    const std::string what = "output '" + output_names[slot] + "'";
    const Comparison c = compare_tensors(results[slot], expected[k].tensor, what);
    if (c.equal) continue;
    const KnownDifference* entry = known_for(known, output_names[slot]);
    if (entry == nullptr) {
      miss = c.reason;
      continue;
    }
    const std::string beyond = check_known_difference(results[slot], expected[k].tensor, *entry);
    if (!beyond.empty()) {
      miss = c.reason + "; outside its known difference (" + describe_bound(*entry) + "): " + beyond;
      continue;
    }
    covered.push_back(what + " within its known difference (" + describe_bound(*entry) + "): " +
                      std::string(entry->reason) + "; " + c.reason);
  }
  for (std::size_t t = 0; t < twins.size(); ++t) {
    std::vector<Tensor> twin_results(output_names.size());
    try {
      twins[t].run(names, tensors, output_names, twin_results);
    } catch (const std::exception& e) {
      throw CaseEnd{CaseStatus::Fail, "the " + twin_name(twin_options[t]) + " threw where this run gave outputs: " +
                                          e.what()};
    }
    for (std::size_t o = 0; o < output_names.size(); ++o) {
      const std::string difference = bit_difference(results[o], twin_results[o]);
      if (!difference.empty()) {
        throw CaseEnd{CaseStatus::Fail, "the " + twin_name(twin_options[t]) + " differs in output '" +
                                            output_names[o] + "': " + difference + (miss.empty() ? "" : "; and " + miss)};
      }
    }
  }
  if (!miss.empty()) throw CaseEnd{CaseStatus::Fail, miss};
}

}  // namespace

bool is_case_folder(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / "model.onnx", ec);
}

std::vector<std::string> model_operators(const IrModel& model) {
  std::set<std::string> names;
  collect_operators(model.graph, names);
  return {names.begin(), names.end()};
}

std::int64_t default_opset(const IrModel& model) {
  for (const IrOpset& opset : model.opset_imports) {
    if (opset.domain.empty() || opset.domain == "ai.onnx") return opset.version;
  }
  return 0;
}

CaseResult run_case(const fs::path& folder, const SessionOptions& options, std::span<const SessionOptions> twins,
                    std::span<const KnownDifference> known) {
  CaseResult result;
  std::string data_set_name;
  const bool exact = options.mode == ExecutionMode::Exact;
  try {
    IrModel model = import_onnx_file(folder / "model.onnx");
    result.operators = model_operators(model);
    result.opset = default_opset(model);
    for (const IrValueInfo& value : model.graph.inputs) check_declared_value(value);
    for (const IrValueInfo& value : model.graph.outputs) check_declared_value(value);
    std::vector<std::string> defaulted_inputs;
    for (const IrValueInfo& value : model.graph.inputs) {
      for (const IrTensor& initializer : model.graph.initializers) {
        if (initializer.name == value.name) {
          defaulted_inputs.push_back(value.name);
          break;
        }
      }
    }
    std::vector<Session> twin_sessions;
    for (const SessionOptions& twin : twins) twin_sessions.push_back(Session::create(model, twin));
    const Session session = Session::create(std::move(model), options);
    // An entry naming an output the model does not have is stale: the list must not drift.
    for (const KnownDifference& entry : known) {
      const bool named = std::any_of(session.outputs().begin(), session.outputs().end(),
                                     [&](const TensorInfo& info) { return info.name == entry.output; });
      if (!named) {
        throw CaseEnd{CaseStatus::Fail, "the known difference for output '" + std::string(entry.output) +
                                            "' names no output of the model"};
      }
    }
    const std::vector<fs::path> data_sets = data_set_folders(folder);
    if (data_sets.empty()) throw CaseEnd{CaseStatus::Fail, "the case has no test_data_set_* folder"};
    std::vector<std::string> covered;
    for (const fs::path& data_set : data_sets) {
      data_set_name = data_set.filename().string();
      const std::size_t before = covered.size();
      run_data_set(session, defaulted_inputs, data_set, twin_sessions, twins, known, covered);
      for (std::size_t k = before; k < covered.size(); ++k) covered[k] = data_set_name + ": " + covered[k];
      ++result.data_sets;
    }
    result.status = covered.empty() ? CaseStatus::Pass : CaseStatus::KnownDiff;
    for (const std::string& note : covered) result.reason += (result.reason.empty() ? "" : "; ") + note;
    return result;
  } catch (const CaseEnd& end) {
    result.status = end.status;
    result.reason = end.reason;
  } catch (const SessionError& e) {
    result.status = status_of_session_error(e.kind(), exact);
    result.reason = e.message();
    if (!e.node_name().empty()) result.reason += " (node '" + e.node_name() + "')";
  } catch (const ModelError& e) {
    result.status = CaseStatus::Fail;
    result.reason = "ModelError: " + e.describe();
  } catch (const TensorError& e) {
    result.status = CaseStatus::Fail;
    result.reason = "TensorError: " + e.message();
  } catch (const std::bad_alloc&) {
    result.status = CaseStatus::Fail;
    result.reason = "out of memory";
  } catch (const std::exception& e) {
    result.status = CaseStatus::Fail;
    result.reason = std::string("unexpected error: ") + e.what();
  } catch (...) {
    result.status = CaseStatus::Fail;
    result.reason = "unexpected error of unknown type";
  }
  if (!data_set_name.empty() && result.status != CaseStatus::Pass) {
    result.reason = data_set_name + ": " + result.reason;
  }
  return result;
}

}  // namespace onemodel::conformance
