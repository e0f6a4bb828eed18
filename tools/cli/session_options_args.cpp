// Options shared by the commands that run models (docs/command-line.md, run and conformance).
#include <iostream>

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

bool parse_session_option(const std::string& command, const Args& args, std::size_t& k, SessionOptions& options) {
  const std::string& arg = args[k];
  if (arg != "--engine" && arg != "--mode" && arg != "--threads") return false;
  if (k + 1 >= args.size()) throw UsageError(command + ": " + arg + " needs a value");
  const std::string& value = args[++k];
  if (arg == "--engine") {
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
  return error.kind() == SessionErrorKind::InvalidInput ? kExitInput : kExitSession;
}

}  // namespace onemodel::cli
