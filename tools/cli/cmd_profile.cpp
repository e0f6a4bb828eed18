// `onemodel profile MODEL --input NAME=FILE.npy... [--mode fast|exact] [--engine optimized|reference]
// [--threads N] [--warmup N] [--runs N] [--trace FILE]` (docs/command-line.md, profile; issue 15):
// runs the model --warmup times untimed, then --runs times with a RunProfile, and prints the time
// of every node and of every operator type (profile_report.hpp), the run times, and the outputs of
// the last run as `onemodel run` prints them. --trace writes the node calls as a Chrome trace.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/error.hpp"
#include "onemodel/run_profile.hpp"
#include "tools/cli/element_type_names.hpp"
#include "tools/cli/escaped_name.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/profile_report.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/run_inputs.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

// At most this many node calls are recorded (runs x nodes): 40 bytes each, 640 MiB.
constexpr std::uint64_t kMaxRecordedCalls = std::uint64_t{1} << 24;

struct ProfileArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
  SessionOptions options;
  int warmup = 2;
  int runs = 10;
  std::string trace;
};

ProfileArgs parse_profile_args(const Args& args) {
  ProfileArgs parsed;
  bool warmup_given = false, runs_given = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (parse_session_option("profile", args, k, parsed.options)) continue;
    if (arg == "--input" || arg == "--warmup" || arg == "--runs" || arg == "--trace") {
      if (k + 1 >= args.size()) throw UsageError("profile: " + arg + " needs a value");
      const std::string& value = args[++k];
      if (arg == "--input") {
        parsed.inputs.push_back(parse_input_arg("profile", value));
      } else if (arg == "--warmup") {
        if (warmup_given) throw UsageError("profile: --warmup is given twice");
        warmup_given = true;
        parsed.warmup = parse_count_arg("profile", arg, value, 0, 100000);
      } else if (arg == "--runs") {
        if (runs_given) throw UsageError("profile: --runs is given twice");
        runs_given = true;
        parsed.runs = parse_count_arg("profile", arg, value, 1, 100000);
      } else {
        if (!parsed.trace.empty()) throw UsageError("profile: --trace is given twice");
        parsed.trace = value;
      }
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') throw UsageError("profile: unknown option '" + arg + "'");
    if (!parsed.model.empty()) throw UsageError("profile takes one model path");
    parsed.model = arg;
  }
  if (parsed.model.empty()) throw UsageError("profile needs a model path");
  return parsed;
}

std::string microseconds(double ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", ns / 1000.0);
  return text;
}

int profile_model(const ProfileArgs& parsed, std::ostream& out) {
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
  bool tensors_only = true;
  for (const TensorInfo& info : session.outputs()) {
    output_names.push_back(info.name);
    tensors_only = tensors_only && info.kind == ValueKind::Tensor;
  }
  if (!tensors_only) {
    throw SessionError(SessionErrorKind::Unsupported,
                       "profile: outputs that are sequences or optionals are not supported; use run");
  }
  // The trace file is opened before any run: an unwritable path fails at once.
  std::ofstream trace;
  if (!parsed.trace.empty()) {
    trace.open(parsed.trace, std::ios::binary | std::ios::trunc);
    if (!trace) throw ModelError(ModelErrorKind::Io, "cannot write the trace file", parsed.trace);
  }

  RunProfile profile;
  RunOptions run_options;
  run_options.profile = &profile;
  std::vector<std::string> lines(output_names.size());
  bool last_run = false;
  const OutputVisitor visit = [&](std::size_t k, const Tensor& result) {
    if (!last_run) return;
    lines[k] = escaped_name(output_names[k]) + " " + element_type_name(static_cast<std::int32_t>(result.dtype())) +
               " " + result.shape().to_string() + " sha256=" + sha256_hex(canonical_bytes(result));
  };
  // Warm-up runs: the plan is built and the nodes are described (allocations of the first run).
  for (int r = 0; r < parsed.warmup; ++r) session.run_visit(names, tensors, output_names, visit, run_options);
  profile.clear_timings();
  const std::uint64_t calls = static_cast<std::uint64_t>(parsed.runs) * std::max<std::size_t>(profile.nodes().size(), 1);
  if (calls > kMaxRecordedCalls) {
    throw UsageError("profile: --runs " + std::to_string(parsed.runs) + " with " +
                     std::to_string(profile.nodes().size()) + " nodes is more than " +
                     std::to_string(kMaxRecordedCalls) + " node calls to record");
  }
  if (parsed.warmup > 0) profile.reserve(static_cast<std::size_t>(calls));
  std::vector<std::int64_t> run_ns;
  run_ns.reserve(static_cast<std::size_t>(parsed.runs));
  for (int r = 0; r < parsed.runs; ++r) {
    last_run = r + 1 == parsed.runs;
    const auto start = std::chrono::steady_clock::now();
    session.run_visit(names, tensors, output_names, visit, run_options);
    const auto end = std::chrono::steady_clock::now();
    run_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  }

  std::int64_t in_nodes = 0;
  for (const NodeTiming& timing : profile.timings()) in_nodes += timing.duration_ns;
  std::int64_t wall = 0;
  for (std::int64_t ns : run_ns) wall += ns;
  const SessionOptions& options = session.options();
  const int threads = options.intra_op_threads > 0
                          ? options.intra_op_threads
                          : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
  out << "model " << parsed.model << "\n";
  out << "engine " << (options.engine == EngineKind::Optimized ? "optimized" : "reference") << ", mode "
      << (options.mode == ExecutionMode::Fast ? "fast" : "exact") << ", threads " << threads << ", kernel path "
      << session.kernel_path() << "\n";
  out << "runs " << parsed.runs << " after " << parsed.warmup << " warm-up, " << profile.nodes().size()
      << " nodes; run time mean " << microseconds(static_cast<double>(wall) / parsed.runs) << " us, median "
      << microseconds(median_ns(run_ns)) << " us; in nodes "
      << microseconds(static_cast<double>(in_nodes) / parsed.runs) << " us\n\n";
  print_profile_tables(profile, out);
  out << "\noutputs (last run)\n";
  for (const std::string& line : lines) out << line << "\n";
  if (trace.is_open()) {
    write_chrome_trace(profile, trace);
    trace.flush();
    if (!trace) throw ModelError(ModelErrorKind::Io, "cannot write the trace file", parsed.trace);
  }
  return kExitOk;
}

}  // namespace

int command_profile(const Args& args, std::ostream& out) {
  const ProfileArgs parsed = parse_profile_args(args);
  return with_run_errors(out, [&] { return profile_model(parsed, out); });
}

}  // namespace onemodel::cli
