// `onemodel`: the command line (docs/command-line.md). Dispatches to one file per command and
// turns every error into the two-line report and exit status of spec/errors.md section 4.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/report_error.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

int dispatch(const Args& all) {
  if (all.empty()) throw UsageError("no command given");
  const std::string& command = all[0];
  const Args rest(all.begin() + 1, all.end());
  if (command == "--help" || command == "-h" || command == "help") return command_help(rest, std::cout);
  if (command == "--version") {
    if (!rest.empty()) throw UsageError("--version takes no arguments");
    std::cout << version_text() << "\n";
    return kExitOk;
  }
  if (command == "info") return command_info(rest, std::cout);
  if (command == "dump") return command_dump(rest, std::cout);
  if (command == "convert") return command_convert(rest, std::cout);
  if (command == "run") return command_run(rest, std::cout);
  if (command == "profile") return command_profile(rest, std::cout);
  if (command == "bench") return command_bench(rest, std::cout);
  if (command == "conformance") return command_conformance(rest, std::cout);
  if (command == "check") return command_check(rest, std::cout);
  if (command == "operators") return command_operators(rest, std::cout);
  throw UsageError("unknown command '" + command + "'");
}

}  // namespace
}  // namespace onemodel::cli

int main(int argc, char** argv) {
  onemodel::cli::Args args;
  for (int k = 1; k < argc; ++k) args.emplace_back(argv[k]);
  int status;
  try {
    status = onemodel::cli::dispatch(args);
  } catch (...) {
    std::cout.flush();
    status = onemodel::cli::report_error(std::current_exception(), std::cerr);
  }
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "Io: cannot write to standard output\n";
    return onemodel::cli::kExitModelFile;
  }
  return status;
}
