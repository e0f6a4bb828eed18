// bench_model_row: one benchmark row of ../shared/spec-source/bench-method.md ("The bar
// runner") for this library, one process per row (the driver wraps it in /usr/bin/time -v for
// the peak RSS):
//
//   bench_model_row REFDIR [--model PATH] --mode fast|exact --threads N
//                   [--engine optimized|reference] [--weights float32|binary16|bfloat16]
//                   [--reps 3] [--target-seconds 1.0] [--max-calls 1000]
//
// --weights sets SessionOptions::weight_storage (compact weights, spec/session.md section 9); the
// row then carries "weights" so its peak RSS and time can be set beside the float32 row.
//
// Procedure (bench-method.md, "Procedure"): load (timed, load_ms), one cold call (first_run_ms),
// 3 untimed warm-up calls, then `reps` repetitions of as many back-to-back calls as fit in about
// `target-seconds` (at most max-calls, the count decided from the warm-up timing); a
// repetition's value is its mean time per call; the row is the median, min, max and
// spread_pct = 100 * (max - min) / median. Inputs are bound before timing and outputs go into
// buffers made by the cold call, so a warm call needs no new tensors. Allocations on the timing
// thread are counted by this binary's global operator new (alloc_bytes_per_iter,
// allocs_per_iter over the timed calls). After timing, the last outputs are compared with the
// reference outputs ("Output check": scaled error max|a-b|/max|b|). One line of JSON goes to
// standard output, everything else to standard error. Exit 0 whatever the error (the driver
// judges), 1 when the row cannot be run, 2 for a bad command line.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/error.hpp"
#include "onemodel/session.hpp"
#include "tools/refdata/allocation_counter.hpp"
#include "tools/refdata/compare.hpp"
#include "tools/refdata/json_line.hpp"
#include "tools/refdata/ref_data.hpp"
#include "tools/refdata/rep_stats.hpp"

#ifndef ONEMODEL_VERSION
#define ONEMODEL_VERSION "unknown"
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RowArgs {
  std::string dir;
  std::string model;
  onemodel::SessionOptions options;
  bool has_mode = false, has_threads = false;
  int reps = 3;
  double target_seconds = 1.0;
  int max_calls = 1000;
};

long whole_number(const std::string& option, const std::string& value, long low, long high) {
  long n = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < low || n > high) {
    throw UsageError(option + " takes a whole number " + std::to_string(low) + " to " + std::to_string(high) +
                     ", not '" + value + "'");
  }
  return n;
}

RowArgs parse_args(int argc, char** argv) {
  RowArgs args;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg.size() > 1 && arg[0] == '-') {
      if (k + 1 >= argc) throw UsageError(arg + " needs a value");
      const std::string value = argv[++k];
      if (arg == "--model") {
        args.model = value;
      } else if (arg == "--mode") {
        if (value == "fast") args.options.mode = onemodel::ExecutionMode::Fast;
        else if (value == "exact") args.options.mode = onemodel::ExecutionMode::Exact;
        else throw UsageError("--mode takes fast or exact, not '" + value + "'");
        args.has_mode = true;
      } else if (arg == "--threads") {
        args.options.intra_op_threads = static_cast<int>(whole_number(arg, value, 1, 256));
        args.has_threads = true;
      } else if (arg == "--engine") {
        if (value == "optimized") args.options.engine = onemodel::EngineKind::Optimized;
        else if (value == "reference") args.options.engine = onemodel::EngineKind::Reference;
        else throw UsageError("--engine takes optimized or reference, not '" + value + "'");
      } else if (arg == "--weights") {
        if (value == "float32") args.options.weight_storage = onemodel::WeightStorage::Original;
        else if (value == "binary16") args.options.weight_storage = onemodel::WeightStorage::Binary16;
        else if (value == "bfloat16") args.options.weight_storage = onemodel::WeightStorage::BFloat16;
        else throw UsageError("--weights takes float32, binary16 or bfloat16, not '" + value + "'");
      } else if (arg == "--reps") {
        args.reps = static_cast<int>(whole_number(arg, value, 1, 1000));
      } else if (arg == "--max-calls") {
        args.max_calls = static_cast<int>(whole_number(arg, value, 1, 1000000));
      } else if (arg == "--target-seconds") {
        char* end = nullptr;
        const double seconds = std::strtod(value.c_str(), &end);
        if (end != value.c_str() + value.size() || !std::isfinite(seconds) || seconds <= 0.0 || seconds > 3600.0) {
          throw UsageError("--target-seconds takes a number of seconds in (0, 3600], not '" + value + "'");
        }
        args.target_seconds = seconds;
      } else {
        throw UsageError("unknown option '" + arg + "'");
      }
      continue;
    }
    if (!args.dir.empty()) throw UsageError("one reference directory only");
    args.dir = arg;
  }
  if (args.dir.empty()) throw UsageError("a reference directory is needed");
  if (!args.has_mode || !args.has_threads) throw UsageError("--mode and --threads are required");
  return args;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

namespace {

using onemodel::refdata::json_number;
using onemodel::refdata::json_string;
using onemodel::refdata::JsonObject;

int run_row(const RowArgs& args) {
  const onemodel::refdata::RefData data = onemodel::refdata::load_ref_data(args.dir);
  const std::string model = args.model.empty() ? data.index.model_file : args.model;
  std::vector<std::string> input_names, output_names;
  for (const auto& entry : data.index.inputs) input_names.push_back(entry.name);
  for (const auto& entry : data.index.outputs) output_names.push_back(entry.name);

  // Load, timed (load_ms; no gate).
  const Clock::time_point load_start = Clock::now();
  const onemodel::Session session = onemodel::Session::load(model, args.options);
  const double load_ms = ms_since(load_start);

  // The cold call makes the output tensors; later calls overwrite them in place.
  std::vector<onemodel::Tensor> outputs(output_names.size());
  const Clock::time_point cold_start = Clock::now();
  session.run(input_names, data.inputs, output_names, outputs);
  const double first_run_ms = ms_since(cold_start);

  // 3 warm-up calls, untimed in the report; their mean decides the calls per repetition.
  constexpr int kWarmups = 3;
  const Clock::time_point warm_start = Clock::now();
  for (int k = 0; k < kWarmups; ++k) session.run(input_names, data.inputs, output_names, outputs);
  const double warm_ms = ms_since(warm_start) / kWarmups;
  const double fit = warm_ms > 0 ? (args.target_seconds * 1000.0) / warm_ms : static_cast<double>(args.max_calls);
  const int calls = static_cast<int>(std::clamp(std::floor(fit), 1.0, static_cast<double>(args.max_calls)));

  std::vector<double> rep_ms;
  rep_ms.reserve(static_cast<std::size_t>(args.reps));
  const onemodel::refdata::AllocationCount before = onemodel::refdata::thread_allocations();
  for (int r = 0; r < args.reps; ++r) {
    const Clock::time_point start = Clock::now();
    for (int c = 0; c < calls; ++c) session.run(input_names, data.inputs, output_names, outputs);
    rep_ms.push_back(ms_since(start) / calls);
  }
  const double timed_calls = static_cast<double>(args.reps) * calls;
  const onemodel::refdata::AllocationCount after = onemodel::refdata::thread_allocations();
  const double allocs_per_iter = static_cast<double>(after.calls - before.calls) / timed_calls;
  const double bytes_per_iter = static_cast<double>(after.bytes - before.bytes) / timed_calls;
  const onemodel::refdata::RepStats stats = onemodel::refdata::stats_of(rep_ms);

  // bench-method.md, "Output check": the last outputs against the reference outputs.
  JsonObject errors;
  double max_err = 0.0;
  bool all_comparable = true;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const onemodel::refdata::OutputComparison c = onemodel::refdata::compare_output(outputs[k], data.outputs[k]);
    if (!c.comparable) {
      std::cerr << "bench_model_row: output " << output_names[k] << ": " << c.problem << "\n";
      all_comparable = false;
      errors.add(output_names[k], "null");
      continue;
    }
    errors.add(output_names[k], json_number(c.scaled_error));
    max_err = std::max(max_err, c.scaled_error);
  }

  JsonObject row;
  row.add("engine", json_string(args.options.engine == onemodel::EngineKind::Optimized ? "onemodel-optimized"
                                                                                        : "onemodel-reference"));
  row.add("mode", json_string(args.options.mode == onemodel::ExecutionMode::Fast ? "fast" : "exact"));
  row.add("threads", std::to_string(args.options.intra_op_threads));
  const onemodel::WeightStorage storage = args.options.weight_storage;
  row.add("weights", json_string(storage == onemodel::WeightStorage::Binary16   ? "binary16"
                                 : storage == onemodel::WeightStorage::BFloat16 ? "bfloat16"
                                                                                : "float32"));
  row.add("model", json_string(data.index.model));
  row.add("variant", json_string(data.index.variant));
  row.add("batch", std::to_string(data.index.batch));
  row.add("load_ms", json_number(load_ms));
  row.add("first_run_ms", json_number(first_run_ms));
  row.add("median_ms", json_number(stats.median));
  row.add("min_ms", json_number(stats.min));
  row.add("max_ms", json_number(stats.max));
  row.add("spread_pct", json_number(stats.spread_pct));
  row.add("reps", std::to_string(args.reps));
  row.add("calls_per_rep", std::to_string(calls));
  row.add("alloc_bytes_per_iter", json_number(bytes_per_iter));
  row.add("allocs_per_iter", json_number(allocs_per_iter));
  row.add("max_scaled_err", all_comparable ? json_number(max_err) : "null");
  row.add("scaled_err", errors.close());
  row.add("kernel_path", json_string(session.kernel_path()));
  row.add("version", json_string(ONEMODEL_VERSION));
  std::cout << row.close() << "\n";
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_row(parse_args(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "bench_model_row: " << e.what() << "\n"
              << "usage: bench_model_row REFDIR [--model PATH] --mode fast|exact --threads N\n"
              << "       [--engine optimized|reference] [--weights float32|binary16|bfloat16]\n"
              << "       [--reps 3] [--target-seconds 1.0] [--max-calls 1000]\n";
    return 2;
  } catch (const onemodel::ModelError& e) {
    std::cerr << "bench_model_row: " << e.describe() << "\n";
  } catch (const onemodel::SessionError& e) {
    std::cerr << "bench_model_row: " << onemodel::to_string(e.kind()) << ": " << e.message() << "\n";
    for (const std::string& op : e.operators()) std::cerr << "  operator " << op << "\n";
  } catch (const std::exception& e) {
    std::cerr << "bench_model_row: " << e.what() << "\n";
  }
  return 1;
}
