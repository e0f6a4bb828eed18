// `onemodel run MODEL --input NAME=FILE.npy ... [--mode fast|exact] [--engine optimized|reference]
// [--threads N] [--memory-limit BYTES] [--deadline TIME] [--random-seed N] [--output-dir DIR]` (docs/command-line.md): runs the model once and prints one
// line per output, `<name> <type> [<dims>] sha256=<hex>` (the name escaped: escaped_name.hpp), the hash over the output's raw
// little-endian element bytes in row-major order. With --output-dir each output is also written
// as DIR/<file name>.npy, the file name being the output name made safe (output_file_names).
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/conformance/npy.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/error.hpp"
#include "tools/cli/element_type_names.hpp"
#include "tools/cli/escaped_name.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/run_inputs.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
  std::string output_dir;
  SessionOptions options;
  std::optional<std::chrono::milliseconds> deadline;  // from the start of the run
  std::optional<std::uint64_t> random_seed;           // RunOptions::random_seed
};

// `--deadline` (docs/command-line.md, run): seconds, whole or decimal ("30", "2.5"), or whole
// milliseconds with "ms" ("1500ms"); at most about 30 days, so that now + it cannot overflow.
std::chrono::milliseconds parse_deadline(const std::string& value) {
  const std::string usage = "run: --deadline takes seconds (30, 2.5) or milliseconds (1500ms), not '" + value + "'";
  const bool ms = value.size() > 2 && value.compare(value.size() - 2, 2, "ms") == 0;
  const std::string number = ms ? value.substr(0, value.size() - 2) : value;
  const std::size_t dot = number.find('.');
  const std::string whole = number.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
  const auto digits_only = [](const std::string& s) { return s.find_first_not_of("0123456789") == std::string::npos; };
  if (whole.empty() || whole.size() > 10 || !digits_only(whole) || !digits_only(fraction) ||
      (dot != std::string::npos && (ms || fraction.empty() || fraction.size() > 3))) {
    throw UsageError(usage);
  }
  std::int64_t millis = std::stoll(whole);
  if (!ms) {
    std::string thousandths = fraction;
    thousandths.resize(3, '0');
    millis = millis * 1000 + std::stoll(thousandths);
  }
  if (millis > std::int64_t{30} * 24 * 3600 * 1000) throw UsageError(usage);
  return std::chrono::milliseconds(millis);
}

RunArgs parse_run_args(const Args& args) {
  RunArgs parsed;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (parse_session_option("run", args, k, parsed.options)) continue;
    if (arg == "--random-seed") {
      // spec/ops/random.md section 2: the key of unseeded random operators' draws.
      if (k + 1 >= args.size()) throw UsageError("run: --random-seed needs a value");
      if (parsed.random_seed) throw UsageError("run: --random-seed is given twice");
      const std::string& value = args[++k];
      const bool digits = !value.empty() && value.size() <= 20 &&
                          value.find_first_not_of("0123456789") == std::string::npos;
      errno = 0;
      const unsigned long long seed = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
      if (!digits || errno == ERANGE) {
        throw UsageError("run: --random-seed takes an integer in [0, 2^64 - 1], not '" + value + "'");
      }
      parsed.random_seed = static_cast<std::uint64_t>(seed);
      continue;
    }
    if (arg == "--deadline") {
      if (k + 1 >= args.size()) throw UsageError("run: --deadline needs a value");
      if (parsed.deadline) throw UsageError("run: --deadline is given twice");
      parsed.deadline = parse_deadline(args[++k]);
      continue;
    }
    if (arg == "--input" || arg == "--output-dir") {
      if (k + 1 >= args.size()) throw UsageError("run: " + arg + " needs a value");
      const std::string& value = args[++k];
      if (arg == "--output-dir") {
        if (!parsed.output_dir.empty()) throw UsageError("run: --output-dir is given twice");
        parsed.output_dir = value;
        continue;
      }
      parsed.inputs.push_back(parse_input_arg("run", value));
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') throw UsageError("run: unknown option '" + arg + "'");
    if (!parsed.model.empty()) throw UsageError("run takes one model path");
    parsed.model = arg;
  }
  if (parsed.model.empty()) throw UsageError("run needs a model path");
  return parsed;
}

// A safe file name for each output: characters other than letters, digits, '.', '_' and '-'
// become '_', names that are empty or all dots get a leading '_', long names are cut, and a name
// already taken gets a suffix _1, _2, ... Never a path separator, so files stay inside DIR.
std::vector<std::string> output_file_names(const std::vector<std::string>& names) {
  std::vector<std::string> files;
  std::set<std::string> taken;
  for (const std::string& name : names) {
    std::string safe;
    for (char c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
      safe += ok ? c : '_';
    }
    if (safe.size() > 200) safe.resize(200);
    if (safe.find_first_not_of('.') == std::string::npos) safe = "_" + safe;
    std::string candidate = safe;
    for (int n = 1; taken.count(candidate) != 0; ++n) candidate = safe + "_" + std::to_string(n);
    taken.insert(candidate);
    files.push_back(candidate);
  }
  return files;
}

int run_model(const RunArgs& parsed, std::ostream& out) {
  // Inputs are read first: a bad file is reported before the model is loaded.
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (const auto& [name, file] : parsed.inputs) {
    names.push_back(name);
    tensors.push_back(conformance::read_npy(file));
  }
  const Session session = Session::load(parsed.model, parsed.options);
  for (std::size_t k = 0; k < names.size(); ++k) tensors[k] = as_declared(tensors[k], session, names[k]);
  std::vector<std::string> output_names;
  for (const TensorInfo& info : session.outputs()) output_names.push_back(info.name);

  std::vector<std::string> files;
  if (!parsed.output_dir.empty()) {
    std::error_code ec;
    fs::create_directories(parsed.output_dir, ec);
    if (ec) throw ModelError(ModelErrorKind::Io, "cannot create the output folder: " + ec.message(), parsed.output_dir);
    files = output_file_names(output_names);
  }
  RunOptions run_options;
  if (parsed.deadline) run_options.deadline = std::chrono::steady_clock::now() + *parsed.deadline;
  if (parsed.random_seed) run_options.random_seed = *parsed.random_seed;
  // One line per tensor; a sequence prints one per element (`name[k]`), an optional its content
  // or `name optional empty` (spec/values.md, docs/command-line.md). Files: `name_k.npy` per element.
  const auto print = [&](const std::string& label, const Tensor& result, const std::string& file) {
    out << label << " " << element_type_name(static_cast<std::int32_t>(result.dtype())) << " "
        << result.shape().to_string() << " sha256=" << sha256_hex(canonical_bytes(result)) << "\n";
    if (files.empty()) return;
    const fs::path path = fs::path(parsed.output_dir) / (file + ".npy");
    try {
      conformance::write_npy(path, result);
    } catch (const conformance::NpyError& e) {
      throw ModelError(ModelErrorKind::Io, e.what(), path.string());
    }
  };
  bool tensors_only = true;
  for (const TensorInfo& info : session.outputs()) tensors_only = tensors_only && info.kind == ValueKind::Tensor;
  if (tensors_only) {
    // Each output is hashed (and written) where the run left it: no copy of it is made, so a
    // 2 GiB output needs no second 2 GiB (issue 11). Results are contiguous (spec/session.md 4).
    session.run_visit(names, tensors, output_names, [&](std::size_t k, const Tensor& result) {
      print(escaped_name(output_names[k]), result, files.empty() ? std::string() : files[k]);
    }, run_options);
    return kExitOk;
  }
  std::vector<Value> inputs(tensors.begin(), tensors.end());
  std::vector<Value> results(output_names.size());
  session.run_values(names, inputs, output_names, results, run_options);
  for (std::size_t k = 0; k < results.size(); ++k) {
    const std::string label = escaped_name(output_names[k]);
    const std::string file = files.empty() ? std::string() : files[k];
    Value value = results[k];
    if (value.kind() == Value::Kind::Optional) {
      if (!value.has_value()) {
        out << label << " optional empty\n";
        continue;
      }
      value = value.value();
    }
    if (value.kind() == Value::Kind::Tensor) {
      print(label, value.tensor(), file);
      continue;
    }
    out << label << " sequence of " << value.elements().size() << " "
        << element_type_name(static_cast<std::int32_t>(value.element_type())) << "\n";
    for (std::size_t e = 0; e < value.elements().size(); ++e) {
      print(label + "[" + std::to_string(e) + "]", value.elements()[e], file + "_" + std::to_string(e));
    }
  }
  return kExitOk;
}

}  // namespace

int command_run(const Args& args, std::ostream& out) {
  const RunArgs parsed = parse_run_args(args);
  return with_run_errors(out, [&] { return run_model(parsed, out); });
}

}  // namespace onemodel::cli
