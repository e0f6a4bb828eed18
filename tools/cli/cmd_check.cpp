// `onemodel check REFDIR... [--model PATH] [--engine optimized|reference|both] [--modes fast,exact]
// [--threads 1,2] [--repeat N] [--gate 1e-4] [--dump DIR] [--allow-blocked]`: the model oracle
// check of ../shared/spec-source/reference-models.md ("Method") against reference directories of
// oracles.md ("Reference outputs"). Per directory, engine, mode and thread count one session is
// loaded and the stored inputs are run `--repeat` times; per output the scaled error (gated), the
// element-wise error (reported) and the 16-digit hash are printed as one tab-separated row. The
// summary then requires every output's hashes to be equal over all thread counts and runs, in
// fast mode as in exact mode. Missing operators make a directory "blocked", which fails the check
// unless --allow-blocked. Exit status 0 only when everything passes; the last line is
// `check: PASS` or `check: FAIL (<reasons>)`.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "onemodel/error.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/usage_error.hpp"
#include "tools/refdata/compare.hpp"
#include "tools/refdata/npy_writer.hpp"
#include "tools/refdata/ref_data.hpp"

namespace onemodel::cli {
namespace {

namespace fs = std::filesystem;
using refdata::OutputComparison;
using refdata::RefData;

struct CheckArgs {
  std::vector<std::string> dirs;
  std::string model;
  std::vector<EngineKind> engines{EngineKind::Optimized};
  std::vector<ExecutionMode> modes{ExecutionMode::Fast, ExecutionMode::Exact};
  std::vector<int> threads{1, 2};
  int repeat = 2;
  double gate = refdata::kDefaultGate;
  std::string dump;
  bool allow_blocked = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

int small_count(const std::string& option, const std::string& value, int low, int high) {
  int n = -1;
  if (!value.empty() && value.size() <= 4 && value.find_first_not_of("0123456789") == std::string::npos) {
    n = std::stoi(value);
  }
  if (n < low || n > high) {
    throw UsageError("check: " + option + " takes whole numbers " + std::to_string(low) + " to " +
                     std::to_string(high) + ", not '" + value + "'");
  }
  return n;
}

CheckArgs parse_check_args(const Args& args) {
  CheckArgs parsed;
  std::set<std::string> given;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (arg == "--allow-blocked") {
      parsed.allow_blocked = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      static const std::set<std::string> kOptions{"--model", "--engine", "--modes", "--threads",
                                                   "--repeat", "--gate", "--dump"};
      if (kOptions.count(arg) == 0) throw UsageError("check: unknown option '" + arg + "'");
      if (k + 1 >= args.size()) throw UsageError("check: " + arg + " needs a value");
      if (!given.insert(arg).second) throw UsageError("check: " + arg + " is given twice");
      const std::string& value = args[++k];
      if (arg == "--model") {
        parsed.model = value;
      } else if (arg == "--engine") {
        if (value == "optimized") parsed.engines = {EngineKind::Optimized};
        else if (value == "reference") parsed.engines = {EngineKind::Reference};
        else if (value == "both") parsed.engines = {EngineKind::Optimized, EngineKind::Reference};
        else throw UsageError("check: --engine takes optimized, reference or both, not '" + value + "'");
      } else if (arg == "--modes") {
        parsed.modes.clear();
        for (const std::string& item : split_list(value)) {
          if (item == "fast") parsed.modes.push_back(ExecutionMode::Fast);
          else if (item == "exact") parsed.modes.push_back(ExecutionMode::Exact);
          else throw UsageError("check: --modes takes a list of fast and exact, not '" + value + "'");
        }
      } else if (arg == "--threads") {
        parsed.threads.clear();
        for (const std::string& item : split_list(value)) parsed.threads.push_back(small_count("--threads", item, 1, 256));
      } else if (arg == "--repeat") {
        parsed.repeat = small_count("--repeat", value, 1, 1000);
      } else if (arg == "--gate") {
        char* end = nullptr;
        const double gate = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(gate) || gate < 0.0) {
          throw UsageError("check: --gate takes a non-negative number, not '" + value + "'");
        }
        parsed.gate = gate;
      } else {
        parsed.dump = value;
      }
      continue;
    }
    parsed.dirs.push_back(arg);
  }
  if (parsed.dirs.empty()) throw UsageError("check needs at least one reference directory");
  return parsed;
}

const char* engine_name(EngineKind engine) { return engine == EngineKind::Optimized ? "optimized" : "reference"; }
const char* mode_name(ExecutionMode mode) { return mode == ExecutionMode::Fast ? "fast" : "exact"; }

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

std::string describe(const ModelError& e) { return one_line(e.describe()); }

std::string number(double value) {
  std::ostringstream text;
  text << std::setprecision(3) << std::scientific << value;
  return text.str();
}

// A folder name from untrusted text (the index's model and variant): letters, digits, '.', '_'
// and '-' kept, anything else '_', never empty, "." or "..".
std::string safe_part(const std::string& text) {
  std::string safe;
  for (char c : text.substr(0, 100)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    safe += ok ? c : '_';
  }
  if (safe.find_first_not_of('.') == std::string::npos) safe = "_" + safe;
  return safe;
}

struct Tally {
  int rows_failed = 0;
  int errors = 0;
  int blocked = 0;
  int hash_sets_unequal = 0;
};

// Hashes per (directory, engine, mode, output), in first-seen order for the summary.
struct HashSet {
  std::string key;  // "dir\tengine\tmode\toutput"
  std::set<std::string> hashes;
  int runs = 0;
};

class Checker {
 public:
  Checker(const CheckArgs& args, std::ostream& out) : args_(args), out_(out) {}

  int run() {
    out_ << "refdir\tengine\tmode\tthreads\toutput\tdtype\tshape\tscaled_err\telementwise_err\tort_noise\thash\tstatus\n";
    for (const std::string& dir : args_.dirs) check_dir(dir);
    for (const HashSet& set : hash_sets_) {
      const bool equal = set.hashes.size() == 1;
      if (!equal) ++tally_.hash_sets_unequal;
      out_ << "hashes\t" << set.key << "\t" << (equal ? "equal" : "UNEQUAL") << "\t" << set.hashes.size()
           << " distinct over " << set.runs << " runs\n";
    }
    for (const std::string& line : notes_) out_ << line << "\n";
    std::vector<std::string> reasons;
    if (tally_.rows_failed > 0) reasons.push_back(std::to_string(tally_.rows_failed) + " rows failed");
    if (tally_.hash_sets_unequal > 0) reasons.push_back(std::to_string(tally_.hash_sets_unequal) + " hash sets unequal");
    if (tally_.errors > 0) reasons.push_back(std::to_string(tally_.errors) + " errors");
    if (tally_.blocked > 0 && !args_.allow_blocked) reasons.push_back(std::to_string(tally_.blocked) + " blocked");
    if (reasons.empty()) {
      out_ << "check: PASS";
      if (tally_.blocked > 0) out_ << " (" << tally_.blocked << " blocked, allowed by --allow-blocked)";
      out_ << "\n";
      return kExitOk;
    }
    std::string joined;
    for (const std::string& reason : reasons) joined += (joined.empty() ? "" : ", ") + reason;
    out_ << "check: FAIL (" << joined << ")\n";
    return 1;
  }

 private:
  void error(const std::string& dir, const std::string& what) {
    ++tally_.errors;
    notes_.push_back("error\t" + dir + "\t" + what);
    std::cerr << "check: " << dir << ": " << what << "\n";
  }

  // oracles.md, "Reference outputs": index.json carries the model's SHA-256. The index's own
  // model_file must match it; a --model file may be another encoding of the same model (a
  // conversion to the OneModel format), so a difference there is only noted.
  bool check_model(const std::string& dir, const RefData& data, const std::string& model) {
    std::string digest;
    try {
      digest = refdata::file_sha256(model);
    } catch (const ModelError& e) {
      error(dir, describe(e));
      return false;
    }
    if (digest == data.index.model_sha256) return true;
    if (args_.model.empty()) {
      error(dir, "InvalidModel: the model file " + model + " has SHA-256 " + digest + ", the index says " +
                     data.index.model_sha256);
      return false;
    }
    std::cerr << "check: note: " << model << " differs from the index's model_sha256 (another encoding?)\n";
    return true;
  }

  void check_dir(const std::string& dir) {
    RefData data;
    try {
      data = refdata::load_ref_data(dir);
    } catch (const ModelError& e) {
      error(dir, describe(e));
      return;
    }
    const std::string model = args_.model.empty() ? data.index.model_file : args_.model;
    if (!check_model(dir, data, model)) return;
    for (EngineKind engine : args_.engines) {
      for (ExecutionMode mode : args_.modes) {
        for (int threads : args_.threads) {
          if (!check_session(dir, data, model, engine, mode, threads)) break;
        }
      }
    }
  }

  // One session; false when it is blocked (no other thread count can do better).
  bool check_session(const std::string& dir, const RefData& data, const std::string& model, EngineKind engine,
                     ExecutionMode mode, int threads) {
    SessionOptions options;
    options.engine = engine;
    options.mode = mode;
    options.intra_op_threads = threads;
    const std::string where = dir + "\t" + engine_name(engine) + "\t" + mode_name(mode);
    std::vector<std::string> input_names, output_names;
    for (const auto& entry : data.index.inputs) input_names.push_back(entry.name);
    for (const auto& entry : data.index.outputs) output_names.push_back(entry.name);
    const std::size_t n = output_names.size();
    std::vector<OutputComparison> worst(n);
    std::vector<std::string> first_hash(n);
    std::vector<Tensor> results;
    try {
      const Session session = Session::load(model, options);
      for (int r = 0; r < args_.repeat; ++r) {
        results.assign(n, Tensor());
        session.run(input_names, data.inputs, output_names, results);
        for (std::size_t k = 0; k < n; ++k) {
          const OutputComparison c = refdata::compare_output(results[k], data.outputs[k]);
          // The worst run of the repeats is reported (an incomparable one is the worst).
          const bool worse = !c.comparable || c.scaled_error > worst[k].scaled_error || c.differing > worst[k].differing;
          if (r == 0 || (worst[k].comparable && worse)) worst[k] = c;
          const std::string hash = refdata::output_hash16(results[k]);
          if (r == 0) first_hash[k] = hash;
          HashSet& set = hash_set(where + "\t" + output_names[k]);
          set.hashes.insert(hash);
          ++set.runs;
        }
      }
    } catch (const SessionError& e) {
      // reference-models.md: a model with a missing operator is blocked, not passed; the
      // session's error names every operator at once (spec/errors.md section 4).
      if (e.kind() == SessionErrorKind::UnsupportedOperator || e.kind() == SessionErrorKind::ExactModeUnavailable) {
        ++tally_.blocked;
        std::string ops;
        for (const std::string& op : e.operators()) ops += (ops.empty() ? "" : ", ") + one_line(op);
        notes_.push_back("blocked\t" + where + "\t" + to_string(e.kind()) + ": " + ops);
        std::cerr << "check: " << dir << " " << engine_name(engine) << " " << mode_name(mode) << ": blocked by "
                  << ops << "\n";
        return false;
      }
      error(dir, std::string(engine_name(engine)) + " " + mode_name(mode) + " threads " + std::to_string(threads) +
                     ": " + to_string(e.kind()) + ": " + one_line(e.message()));
      return true;
    } catch (const ModelError& e) {
      error(dir, describe(e));
      return false;
    }
    for (std::size_t k = 0; k < n; ++k) {
      const OutputComparison& c = worst[k];
      const bool pass = refdata::passes_gate(c, args_.gate);
      if (!pass) ++tally_.rows_failed;
      std::string status = "pass";
      if (!c.comparable) status = "FAIL (" + c.problem + ")";
      else if (!pass && c.floating) status = "FAIL (scaled error above " + number(args_.gate) + ")";
      else if (!pass) status = "FAIL (" + std::to_string(c.differing) + " elements differ; exact match required)";
      out_ << where << "\t" << threads << "\t" << one_line(output_names[k]) << "\t"
           << refdata::index_dtype_name(results[k].dtype()) << "\t" << results[k].shape().to_string() << "\t"
           << (c.comparable ? number(c.scaled_error) : "-") << "\t" << (c.comparable ? number(c.elementwise_error) : "-")
           << "\t" << (data.index.outputs[k].ort_noise_scaled >= 0 ? number(data.index.outputs[k].ort_noise_scaled) : "-")
           << "\t" << first_hash[k] << "\t" << status << "\n";
    }
    if (!args_.dump.empty()) dump(data, engine, mode, threads, results);
    return true;
  }

  HashSet& hash_set(const std::string& key) {
    for (HashSet& set : hash_sets_) {
      if (set.key == key) return set;
    }
    hash_sets_.push_back(HashSet{key, {}, 0});
    return hash_sets_.back();
  }

  // DIR/<model>/<variant>/b<batch>/<engine>-<mode>-t<threads>/<the reference's file name>.
  void dump(const RefData& data, EngineKind engine, ExecutionMode mode, int threads, const std::vector<Tensor>& results) {
    std::string batch = "b";
    batch += std::to_string(data.index.batch);
    std::string session = engine_name(engine);
    session += '-';
    session += mode_name(mode);
    session += "-t";
    session += std::to_string(threads);
    const fs::path folder =
        fs::path(args_.dump) / safe_part(data.index.model) / safe_part(data.index.variant) / batch / session;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw ModelError(ModelErrorKind::Io, "cannot create the dump folder: " + ec.message(), folder.string());
    for (std::size_t k = 0; k < results.size(); ++k) {
      // The index's file names were checked to be plain relative paths (ref_index.cpp).
      refdata::write_npy_file(folder / fs::path(data.index.outputs[k].file).filename(), results[k]);
    }
  }

  const CheckArgs& args_;
  std::ostream& out_;
  Tally tally_;
  std::vector<HashSet> hash_sets_;
  std::vector<std::string> notes_;
};

}  // namespace

int command_check(const Args& args, std::ostream& out) {
  const CheckArgs parsed = parse_check_args(args);
  return Checker(parsed, out).run();
}

}  // namespace onemodel::cli
