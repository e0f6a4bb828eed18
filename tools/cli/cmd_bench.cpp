// `onemodel bench MODEL [--input NAME=FILE.npy...] [--mode fast|exact] [--engine E] [--threads N]
// [--weights W] [--warmup N] [--reps N] [--target-seconds S] [--max-calls N] [--json FILE|-]`
// (docs/command-line.md, bench; issue 16): the bar's procedure (bench-method.md "Procedure", as
// bench_model_row) on any model: load (timed), one cold call, warm-up calls, then `reps`
// repetitions of as many calls as fit in about `target-seconds`. It prints the bar's figure (the
// median of the repetitions' mean time per call, with min, max and spread), the distribution of
// single calls (median, p90, min), heap allocations per warm call on the calling thread, the peak
// resident set and the load time; `--json` writes the same as one JSON object. A progress bar goes
// to standard error when it is a terminal.
//
// Inputs not given with --input are made when the model declares every extent: float inputs get
// a fixed pseudo-random pattern in [-1, 1], integer and bool inputs zeros (valid token ids and
// indices for most models). An input with a symbolic or unknown extent must be given.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "onemodel/error.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/run_inputs.hpp"
#include "tools/cli/usage_error.hpp"
#include "tools/refdata/allocation_counter.hpp"
#include "tools/refdata/json_line.hpp"
#include "tools/refdata/rep_stats.hpp"

#ifndef ONEMODEL_VERSION
#define ONEMODEL_VERSION "unknown"
#endif

namespace onemodel::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
  SessionOptions options;
  int warmup = 3;
  int reps = 3;
  double target_seconds = 1.0;
  int max_calls = 1000;
  std::string json;  // "" none, "-" standard output
};

BenchArgs parse_bench_args(const Args& args) {
  BenchArgs parsed;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (parse_session_option("bench", args, k, parsed.options)) continue;
    if (arg == "--input" || arg == "--warmup" || arg == "--reps" || arg == "--target-seconds" ||
        arg == "--max-calls" || arg == "--json") {
      if (k + 1 >= args.size()) throw UsageError("bench: " + arg + " needs a value");
      const std::string& value = args[++k];
      if (arg == "--input") {
        parsed.inputs.push_back(parse_input_arg("bench", value));
      } else if (arg == "--warmup") {
        parsed.warmup = parse_count_arg("bench", arg, value, 0, 100000);
      } else if (arg == "--reps") {
        parsed.reps = parse_count_arg("bench", arg, value, 1, 1000);
      } else if (arg == "--max-calls") {
        parsed.max_calls = parse_count_arg("bench", arg, value, 1, 1000000);
      } else if (arg == "--target-seconds") {
        char* end = nullptr;
        const double seconds = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(seconds) || seconds <= 0.0 ||
            seconds > 3600.0) {
          throw UsageError("bench: --target-seconds takes a number of seconds in (0, 3600], not '" + value + "'");
        }
        parsed.target_seconds = seconds;
      } else {
        parsed.json = value;
      }
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') throw UsageError("bench: unknown option '" + arg + "'");
    if (!parsed.model.empty()) throw UsageError("bench takes one model path");
    parsed.model = arg;
  }
  if (parsed.model.empty()) throw UsageError("bench needs a model path");
  return parsed;
}

// A declared input made up when no file is given (see the top of the file); an input error
// (InvalidInput, as a missing input of `run`) when an extent is not fixed.
Tensor made_input(const TensorInfo& info) {
  std::vector<std::int64_t> extents;
  std::string dims;
  bool fixed = info.kind == ValueKind::Tensor && info.has_rank && info.element_type != 0;
  for (const IrDim& d : info.dims) {
    dims += dims.empty() ? "" : ", ";
    if (d.kind == IrDim::Kind::Value) {
      extents.push_back(d.value);
      dims += std::to_string(d.value);
    } else {
      fixed = false;
      dims += d.kind == IrDim::Kind::Param ? d.param : "?";
    }
  }
  if (!fixed) {
    throw SessionError(SessionErrorKind::InvalidInput, "bench: input '" + info.name + "' has no fixed shape [" + dims +
                                                           "]: give --input " + info.name + "=FILE.npy");
  }
  const DType type = dtype_from_onnx(info.element_type);
  Tensor tensor = Tensor::zeros(type, Shape(std::span<const std::int64_t>(extents)));
  if (type == DType::F32) {
    std::uint32_t state = 0x9E3779B9u;
    for (float& v : tensor.mutable_data<float>()) {
      state = state * 1664525u + 1013904223u;  // a fixed LCG: the same inputs on every run
      v = static_cast<float>(static_cast<double>(state >> 8) / 8388608.0 - 1.0);
    }
  }
  return tensor;
}

// Peak resident set of this process in MiB (Linux reports ru_maxrss in KiB).
double peak_rss_mib() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return std::nan("");
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// "model name" of /proc/cpuinfo, "" where there is none: every figure names its CPU.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "";
}

class Progress {
 public:
  explicit Progress(int total) : total_(total), shown_(isatty(STDERR_FILENO) != 0) {}
  void step(const char* stage) {
    if (!shown_) return;
    ++done_;
    const int width = 30;
    const int filled = total_ > 0 ? done_ * width / total_ : width;
    std::fprintf(stderr, "\r[%-*s] %d/%d %-10s", width, std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 done_, total_, stage);
    std::fflush(stderr);
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 60, "");
  }

 private:
  int total_;
  int done_ = 0;
  bool shown_;
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

int bench_model(const BenchArgs& parsed, std::ostream& out) {
  // Inputs are read first: a bad file is reported before the model is loaded.
  std::vector<std::pair<std::string, Tensor>> given;
  for (const auto& [name, file] : parsed.inputs) given.emplace_back(name, conformance::read_npy(file));
  std::ofstream json_file;
  if (!parsed.json.empty() && parsed.json != "-") {
    json_file.open(parsed.json, std::ios::binary | std::ios::trunc);
    if (!json_file) throw ModelError(ModelErrorKind::Io, "cannot write the JSON file", parsed.json);
  }

  const Clock::time_point load_start = Clock::now();
  const Session session = Session::load(parsed.model, parsed.options);
  const double load_ms = ms_between(load_start, Clock::now());

  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (const TensorInfo& info : session.inputs()) {
    names.push_back(info.name);
    const auto it = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == info.name; });
    tensors.push_back(it != given.end() ? as_declared(it->second, session, info.name) : made_input(info));
  }
  for (const auto& [name, tensor] : given) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw SessionError(SessionErrorKind::InvalidInput, "bench: the model has no input named '" + name + "'");
    }
  }
  std::vector<std::string> output_names;
  for (const TensorInfo& info : session.outputs()) {
    if (info.kind != ValueKind::Tensor) {
      throw SessionError(SessionErrorKind::Unsupported,
                         "bench: outputs that are sequences or optionals are not supported; use run");
    }
    output_names.push_back(info.name);
  }

  // The cold call makes the output tensors; later calls overwrite them in place (as the bar).
  Progress progress(2 + parsed.reps);
  std::vector<Tensor> outputs(output_names.size());
  const Clock::time_point cold_start = Clock::now();
  session.run(names, tensors, output_names, outputs);
  const double first_run_ms = ms_between(cold_start, Clock::now());
  progress.step("cold call");

  const Clock::time_point warm_start = Clock::now();
  for (int k = 0; k < parsed.warmup; ++k) session.run(names, tensors, output_names, outputs);
  const double warm_ms = parsed.warmup > 0 ? ms_between(warm_start, Clock::now()) / parsed.warmup : first_run_ms;
  progress.step("warm-up");
  const double fit = warm_ms > 0 ? parsed.target_seconds * 1000.0 / warm_ms : parsed.max_calls;
  const int calls = static_cast<int>(std::clamp(std::floor(fit), 1.0, static_cast<double>(parsed.max_calls)));

  std::vector<double> rep_ms, call_ms;
  call_ms.reserve(static_cast<std::size_t>(parsed.reps) * static_cast<std::size_t>(calls));
  const refdata::AllocationCount before = refdata::thread_allocations();
  for (int r = 0; r < parsed.reps; ++r) {
    const Clock::time_point rep_start = Clock::now();
    Clock::time_point last = rep_start;
    for (int c = 0; c < calls; ++c) {
      session.run(names, tensors, output_names, outputs);
      const Clock::time_point now = Clock::now();
      call_ms.push_back(ms_between(last, now));
      last = now;
    }
    rep_ms.push_back(ms_between(rep_start, last) / calls);
    progress.step("timing");
  }
  const refdata::AllocationCount after = refdata::thread_allocations();
  // The call times' vector was reserved before counting, so its growth is not counted.
  const double timed = static_cast<double>(parsed.reps) * calls;
  const double allocs = static_cast<double>(after.calls - before.calls) / timed;
  const double alloc_bytes = static_cast<double>(after.bytes - before.bytes) / timed;
  const refdata::RepStats bar = refdata::stats_of(rep_ms);
  const refdata::RepStats single = refdata::stats_of(call_ms);
  const double p90 = refdata::percentile(call_ms, 90.0);
  const double rss = peak_rss_mib();

  const SessionOptions& options = session.options();
  const int threads = options.intra_op_threads > 0
                          ? options.intra_op_threads
                          : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
  const std::string cpu = cpu_model();
  char text[512];
  out << "model " << parsed.model << "\n";
  out << "engine " << (options.engine == EngineKind::Optimized ? "optimized" : "reference") << ", mode "
      << (options.mode == ExecutionMode::Fast ? "fast" : "exact") << ", threads " << threads << ", kernel path "
      << session.kernel_path() << (cpu.empty() ? "" : ", cpu " + cpu) << "\n";
  std::snprintf(text, sizeof text, "load %.1f ms, first call %.3f ms, %d warm-up, %d x %d timed calls\n", load_ms,
                first_run_ms, parsed.warmup, parsed.reps, calls);
  out << text;
  std::snprintf(text, sizeof text, "per call (bar: median of %d repetitions) %.4f ms (min %.4f, max %.4f, spread %.1f%%)\n",
                parsed.reps, bar.median, bar.min, bar.max, bar.spread_pct);
  out << text;
  std::snprintf(text, sizeof text, "single calls: median %.4f ms, p90 %.4f ms, min %.4f ms\n", single.median, p90,
                single.min);
  out << text;
  std::snprintf(text, sizeof text, "allocations per call %.1f (%.0f bytes), peak RSS %.1f MiB\n", allocs, alloc_bytes,
                rss);
  out << text;

  if (!parsed.json.empty()) {
    using refdata::json_number;
    using refdata::json_string;
    refdata::JsonObject row;
    row.add("model", json_string(parsed.model));
    row.add("engine", json_string(options.engine == EngineKind::Optimized ? "optimized" : "reference"));
    row.add("mode", json_string(options.mode == ExecutionMode::Fast ? "fast" : "exact"));
    row.add("threads", std::to_string(threads));
    row.add("kernel_path", json_string(session.kernel_path()));
    row.add("cpu_model", json_string(cpu));
    row.add("version", json_string(ONEMODEL_VERSION));
    row.add("load_ms", json_number(load_ms));
    row.add("first_run_ms", json_number(first_run_ms));
    row.add("warmup", std::to_string(parsed.warmup));
    row.add("reps", std::to_string(parsed.reps));
    row.add("calls_per_rep", std::to_string(calls));
    row.add("median_ms", json_number(bar.median));
    row.add("min_ms", json_number(bar.min));
    row.add("max_ms", json_number(bar.max));
    row.add("spread_pct", json_number(bar.spread_pct));
    row.add("call_median_ms", json_number(single.median));
    row.add("call_p90_ms", json_number(p90));
    row.add("call_min_ms", json_number(single.min));
    row.add("allocs_per_iter", json_number(allocs));
    row.add("alloc_bytes_per_iter", json_number(alloc_bytes));
    row.add("peak_rss_mb", json_number(rss));
    const std::string line = row.close() + "\n";
    if (parsed.json == "-") {
      out << line;
    } else {
      json_file << line;
      json_file.flush();
      if (!json_file) throw ModelError(ModelErrorKind::Io, "cannot write the JSON file", parsed.json);
    }
  }
  return kExitOk;
}

}  // namespace

int command_bench(const Args& args, std::ostream& out) {
  const BenchArgs parsed = parse_bench_args(args);
  return with_run_errors(out, [&] { return bench_model(parsed, out); });
}

}  // namespace onemodel::cli
