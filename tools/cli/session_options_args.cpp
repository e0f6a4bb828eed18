// Options shared by the commands that run models (docs/command-line.md, run and conformance).
#include <cstdint>
#include <iostream>
#include <string>

#include "tools/cli/exit_status.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::int64_t parse_byte_count(const std::string& command, const std::string& value) {
  // Digits, then K, M or G (binary: 2^10, 2^20, 2^30); at least 1, at most INT64_MAX.
  const std::string usage = command + ": --memory-limit takes a byte count with an optional K, M or G, not '" +
                            value + "'";
  std::size_t digits = value.find_first_not_of("0123456789");
  if (digits == std::string::npos) digits = value.size();
  if (digits == 0 || digits > 19 || value.size() - digits > 1) throw UsageError(usage);
  int shift = 0;
  if (digits < value.size()) {
    const char unit = value[digits];
    if (unit == 'K' || unit == 'k') shift = 10;
    else if (unit == 'M' || unit == 'm') shift = 20;
    else if (unit == 'G' || unit == 'g') shift = 30;
    else throw UsageError(usage);
  }
  const unsigned long long count = std::stoull(value.substr(0, digits));
  if (count == 0 || count > (static_cast<unsigned long long>(INT64_MAX) >> shift)) throw UsageError(usage);
  return static_cast<std::int64_t>(count << shift);
}

WeightStorage parse_weight_storage(const std::string& command, const std::string& value, bool allow_float32) {
  if (value == "binary16") return WeightStorage::Binary16;
  if (value == "bfloat16") return WeightStorage::BFloat16;
  if (allow_float32 && value == "float32") return WeightStorage::Original;
  throw UsageError(command + ": --weights takes " + (allow_float32 ? "float32, " : "") + "binary16 or bfloat16, not '" +
                   value + "'");
}

bool parse_session_option(const std::string& command, const Args& args, std::size_t& k, SessionOptions& options) {
  const std::string& arg = args[k];
  if (arg != "--engine" && arg != "--mode" && arg != "--threads" && arg != "--memory-limit" && arg != "--weights") {
    return false;
  }
  if (k + 1 >= args.size()) throw UsageError(command + ": " + arg + " needs a value");
  const std::string& value = args[++k];
  if (arg == "--weights") {
    // spec/session.md section 9: compact weights.
    options.weight_storage = parse_weight_storage(command, value, true);
  } else if (arg == "--memory-limit") {
    options.memory_limit_bytes = parse_byte_count(command, value);
  } else if (arg == "--engine") {
    if (value == "optimized") options.engine = EngineKind::Optimized;
    else if (value == "reference") options.engine = EngineKind::Reference;
    else throw UsageError(command + ": --engine takes optimized or reference, not '" + value + "'");
  } else if (arg == "--mode") {
    if (value == "fast") options.mode = ExecutionMode::Fast;
    else if (value == "exact") options.mode = ExecutionMode::Exact;
    else throw UsageError(command + ": --mode takes fast or exact, not '" + value + "'");
  } else {
    int threads = -1;
    if (!value.empty() && value.size() <= 3 && value.find_first_not_of("0123456789") == std::string::npos) {
      threads = std::stoi(value);
    }
    if (threads < 0 || threads > 256) throw UsageError(command + ": --threads takes 0 to 256, not '" + value + "'");
    options.intra_op_threads = threads;
  }
  return true;
}

int report_session_error(const SessionError& error, std::ostream& err) {
  err << to_string(error.kind()) << ": " << one_line(error.message()) << "\n";
  if (!error.node_name().empty()) err << "  at node " << one_line(error.node_name()) << "\n";
  for (const std::string& op : error.operators()) err << "  operator " << one_line(op) << "\n";
  return exit_status_of(error.kind());
}

}  // namespace onemodel::cli
