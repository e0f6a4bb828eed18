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
#include "core/onnx/value_entry.hpp"
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

[[noreturn]] void unsupported_declaration(const IrValueInfo& value, const std::string& what) {
  throw CaseEnd{CaseStatus::UnsupportedType,
                "value '" + value.name + "' is " + what +
                    "; values hold tensors, sequences of tensors and optionals of either (include/onemodel/value.hpp)"};
}

// spec/conformance.md section 4: a graph input or output whose value the library cannot hold
// makes the case unsupported-type before anything is created. Values (include/onemodel/value.hpp)
// hold a tensor, a sequence of tensors, or an optional of a tensor or of a sequence of tensors;
// maps, sparse tensors, opaque values, nested sequences and optionals of optionals remain gaps, as
// do element types the tensor library does not store. Undeclared parts (kind None) are left to
// the data and the session.
void check_declared_value(const IrValueInfo& value) {
  const IrType* type = &value.type;
  std::string container;
  if (type->kind == IrType::Kind::Optional) {
    if (type->inner.empty()) return;
    type = &type->inner[0];
    container = "an optional of ";
    if (type->kind != IrType::Kind::Tensor && type->kind != IrType::Kind::Sequence && type->kind != IrType::Kind::None) {
      unsupported_declaration(value, container + kind_text(type->kind));
    }
  }
  if (type->kind == IrType::Kind::Sequence) {
    if (type->inner.empty()) return;
    type = &type->inner[0];
    container += "a sequence of ";
    if (type->kind != IrType::Kind::Tensor && type->kind != IrType::Kind::None) {
      unsupported_declaration(value, container + kind_text(type->kind));
    }
  }
  if (type->kind == IrType::Kind::None) return;
  if (type->kind != IrType::Kind::Tensor) unsupported_declaration(value, kind_text(type->kind));
  if (type->elem_type != 0 && !dtype_is_stored(type->elem_type)) {
    throw CaseEnd{CaseStatus::UnsupportedType, "value '" + value.name + "' has element type " +
                                                   std::string(onnx_type_name(type->elem_type))};
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

// A graph input or output as the model declares it: the declared kind says which message its
// data files hold (spec/conformance.md section 1), the element type fills in what an empty
// sequence or optional file does not say.
struct Slot {
  std::string name;
  ValueKind kind = ValueKind::Tensor;
  ValueKind optional_of = ValueKind::Tensor;
  std::int32_t element_type = 0;
};

Slot slot_of(const TensorInfo& info) { return Slot{info.name, info.kind, info.optional_of, info.element_type}; }

onnx::ValueMessage message_of(ValueKind kind) {
  switch (kind) {
    case ValueKind::Sequence: return onnx::ValueMessage::Sequence;
    case ValueKind::Optional: return onnx::ValueMessage::Optional;
    default: return onnx::ValueMessage::Tensor;
  }
}

struct DataFile {
  fs::path path;
  ByteView bytes;
};

// One data file read as the value of its slot.
struct FileValue {
  Value value;
  // False for an empty sequence (also inside an optional) when neither the file nor the
  // declaration says its element type: compare_values must not judge the placeholder type.
  bool element_type_known = true;
};

Tensor stored_tensor(const IrTensor& ir, const std::string& what) {
  if (!dtype_is_stored(ir.data_type)) {
    throw CaseEnd{CaseStatus::UnsupportedType, what + " has element type " + std::string(onnx_type_name(ir.data_type))};
  }
  return tensor_from_ir(ir, what);
}

// The declared element type when the library stores it, else float32 as a placeholder.
DType declared_dtype(const Slot& slot, bool& known) {
  known = slot.element_type != 0 && dtype_is_stored(slot.element_type);
  return known ? static_cast<DType>(slot.element_type) : DType::F32;
}

Value sequence_value(const onnx::IrValue& ir, const Slot& slot, const std::string& what, bool& known) {
  std::vector<Tensor> elements;
  for (std::size_t k = 0; k < ir.elements.size(); ++k) {
    elements.push_back(stored_tensor(ir.elements[k], what + " element " + std::to_string(k)));
  }
  // An empty SequenceProto names no tensor type: the declaration gives it, if anything does.
  DType type = declared_dtype(slot, known);
  if (!elements.empty()) {
    type = elements.front().dtype();
    known = true;
  }
  return Value::sequence(type, std::move(elements));
}

FileValue read_value(const DataFile& file, const Slot& slot) {
  const std::string what = file.path.filename().string();
  onnx::IrValue ir;
  try {
    ir = onnx::parse_value_bytes(file.bytes, file.path.string(), message_of(slot.kind));
  } catch (const ModelError& e) {
    // spec/conformance.md section 4: a data file holding a value the library does not hold (a
    // sequence of maps, an optional of a sparse tensor, ...) is a gap, not a failure.
    if (e.kind() == ModelErrorKind::Unsupported) throw CaseEnd{CaseStatus::UnsupportedType, what + ": " + e.describe()};
    throw;
  }
  FileValue result;
  switch (ir.kind) {
    case onnx::ValueMessage::Tensor:
      result.value = Value(stored_tensor(ir.tensor, what));
      return result;
    case onnx::ValueMessage::Sequence:
      result.value = sequence_value(ir, slot, what, result.element_type_known);
      return result;
    case onnx::ValueMessage::Optional: break;
  }
  if (ir.content.empty()) {
    // OptionalProto elem_type 0 does not say what an empty optional would hold; the declaration does.
    const Value::Kind of = ir.optional_of == onnx::kValueElemSequence ? Value::Kind::Sequence
                           : ir.optional_of == onnx::kValueElemTensor  ? Value::Kind::Tensor
                           : slot.optional_of == ValueKind::Sequence   ? Value::Kind::Sequence
                                                                       : Value::Kind::Tensor;
    bool known = false;
    result.value = Value::empty_optional(of, declared_dtype(slot, known));
    return result;
  }
  const onnx::IrValue& content = ir.content.front();
  if (content.kind == onnx::ValueMessage::Sequence) {
    result.value = Value::optional(sequence_value(content, slot, what, result.element_type_known));
  } else {
    result.value = Value::optional(Value(stored_tensor(content.tensor, what)));
  }
  return result;
}

// spec/conformance.md section 2: a file is matched by its name when that names one of `slots`,
// else by position. The name is read as the message the slot's declared kind says the file is
// (TensorProto.name, SequenceProto.name or OptionalProto.name, different field numbers), so a file
// is compared with each slot under that slot's reading.
std::vector<std::size_t> match_files(const std::vector<DataFile>& files, const std::vector<Slot>& slots,
                                     const std::string& what) {
  std::vector<std::size_t> matched;
  std::vector<bool> taken(slots.size(), false);
  for (std::size_t k = 0; k < files.size(); ++k) {
    std::size_t slot = slots.size();
    for (std::size_t n = 0; n < slots.size(); ++n) {
      const std::string name = onnx::peek_value_name(files[k].bytes, files[k].path.string(), message_of(slots[n].kind));
      if (!name.empty() && slots[n].name == name) slot = n;
    }
    if (slot == slots.size()) slot = k;
    if (slot >= slots.size() || taken[slot]) {
      throw CaseEnd{CaseStatus::Fail, what + " file " + std::to_string(k) + " matches no " + what + " of the model"};
    }
    taken[slot] = true;
    matched.push_back(slot);
  }
  return matched;
}

std::vector<DataFile> load_files(const fs::path& folder, const std::string& prefix) {
  std::vector<DataFile> files;
  for (fs::path& file : numbered_files(folder, prefix)) {
    ByteView bytes = load_file_bytes(file);
    files.push_back(DataFile{std::move(file), std::move(bytes)});
  }
  return files;
}

std::string twin_name(const SessionOptions& options) {
  return std::string(options.engine == EngineKind::Reference ? "reference" : "optimized") + " engine at " +
         std::to_string(options.intra_op_threads) + " thread" + (options.intra_op_threads == 1 ? "" : "s");
}

// Empty when equal bit for bit, else where they first differ.
std::string bit_difference(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return "element types differ";
  if (!(a.shape() == b.shape())) return "shapes " + a.shape().to_string() + " and " + b.shape().to_string();
  if (a.dtype() == DType::String) {
    const std::vector<std::string> x = a.to_vector<std::string>();
    const std::vector<std::string> y = b.to_vector<std::string>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] != y[i]) return "element " + std::to_string(i) + " differs";
    }
    return {};
  }
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

// The same for values (spec/conformance.md section 2, the twin gate): kinds, then a sequence's
// element type, length and each element, an optional's presence and content.
std::string bit_difference(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return "kinds differ";
  switch (a.kind()) {
    case Value::Kind::Tensor:
      if (a.defined() != b.defined()) return "one tensor is undefined";
      return a.defined() ? bit_difference(a.tensor(), b.tensor()) : std::string();
    case Value::Kind::Sequence: {
      if (a.element_type() != b.element_type()) return "sequence element types differ";
      if (a.elements().size() != b.elements().size()) {
        return "sequences of " + std::to_string(a.elements().size()) + " and " + std::to_string(b.elements().size()) +
               " elements";
      }
      for (std::size_t k = 0; k < a.elements().size(); ++k) {
        const std::string d = bit_difference(a.elements()[k], b.elements()[k]);
        if (!d.empty()) return "sequence element " + std::to_string(k) + ": " + d;
      }
      return {};
    }
    case Value::Kind::Optional:
      if (a.has_value() != b.has_value()) return "one optional is empty, the other is not";
      if (!a.has_value()) return a.optional_of() == b.optional_of() ? std::string() : "empty optionals of different kinds";
      return bit_difference(a.value(), b.value());
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
  const std::vector<DataFile> input_files = load_files(folder, "input_");
  const std::vector<DataFile> output_files = load_files(folder, "output_");

  std::vector<Slot> input_slots;
  for (const TensorInfo& info : session.inputs()) input_slots.push_back(slot_of(info));
  // Inputs with an initializer of the same name: the initializer is a tensor, so is the input.
  for (const std::string& name : defaulted_inputs) input_slots.push_back(Slot{name});
  std::vector<Slot> output_slots;
  for (const TensorInfo& info : session.outputs()) output_slots.push_back(slot_of(info));
  std::vector<std::string> output_names;
  for (const Slot& slot : output_slots) output_names.push_back(slot.name);
  if (output_files.size() != output_slots.size()) {
    throw CaseEnd{CaseStatus::Fail, "the model has " + std::to_string(output_slots.size()) + " outputs, the data set " +
                                        std::to_string(output_files.size())};
  }
  // Positions count the required inputs (those without an initializer of the same name), as the
  // ONNX backend runner does; inputs with a default follow and can be matched by name. Each file
  // is then read as the message its slot's declared kind names (spec/conformance.md section 1).
  const std::vector<std::size_t> input_match = match_files(input_files, input_slots, "input");
  const std::vector<std::size_t> output_match = match_files(output_files, output_slots, "output");
  std::vector<std::string> names;
  std::vector<Value> values;
  for (std::size_t k = 0; k < input_files.size(); ++k) {
    const Slot& slot = input_slots[input_match[k]];
    names.push_back(slot.name);
    values.push_back(read_value(input_files[k], slot).value);
  }
  std::vector<FileValue> expected;
  for (std::size_t k = 0; k < output_files.size(); ++k) expected.push_back(read_value(output_files[k], output_slots[output_match[k]]));

  std::vector<Value> results(output_names.size());
  session.run_values(names, values, output_names, results);
  // The recorded data first, remembering the first miss instead of ending the case: the twins
  // below must run on every data set that produced outputs (a wrong kernel that is also
  // thread-dependent would otherwise hide its second defect behind the first).
  std::string miss;
  for (std::size_t k = 0; k < expected.size() && miss.empty(); ++k) {
    const std::size_t slot = output_match[k];
    const std::string what = "output '" + output_names[slot] + "'";
    const Value& want = expected[k].value;
    const Comparison c = compare_values(results[slot], want, what, expected[k].element_type_known);
    if (c.equal) continue;
    // Known differences bound tensors (spec/conformance.md section 4); none is listed for a
    // sequence or an optional, so a miss there is a miss.
    const KnownDifference* entry = known_for(known, output_names[slot]);
    const bool tensors = want.kind() == Value::Kind::Tensor && results[slot].kind() == Value::Kind::Tensor &&
                         results[slot].defined();
    if (entry == nullptr || !tensors) {
      miss = c.reason;
      continue;
    }
    const std::string beyond = check_known_difference(results[slot].tensor(), want.tensor(), *entry);
    if (!beyond.empty()) {
      miss = c.reason + "; outside its known difference (" + describe_bound(*entry) + "): " + beyond;
      continue;
    }
    covered.push_back(what + " within its known difference (" + describe_bound(*entry) + "): " +
                      std::string(entry->reason) + "; " + c.reason);
  }
  for (std::size_t t = 0; t < twins.size(); ++t) {
    std::vector<Value> twin_results(output_names.size());
    try {
      twins[t].run_values(names, values, output_names, twin_results);
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
