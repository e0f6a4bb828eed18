// `onemodel --help`, `onemodel help [COMMAND]` and the version text (docs/command-line.md).
#include <ostream>

#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

constexpr const char* kOverview =
    "usage: onemodel <command> [arguments]\n"
    "\n"
    "Commands (MODEL is an ONNX file or a OneModel-format file; the first eight bytes tell):\n"
    "  info MODEL                  inputs, outputs, opsets and operator counts\n"
    "  dump MODEL...               the structural dump (spec/dump.md); with several models each\n"
    "                              dump follows a line `==> MODEL <==`\n"
    "  dump --each LIST --output-dir DIR\n"
    "                              dump every model named in LIST (one path a line) to DIR/<k>.txt\n"
    "  convert IN OUT              write IN in the OneModel format to OUT\n"
    "  convert --each LIST --output-dir DIR\n"
    "                              convert every model named in LIST to DIR/<k>.onemodel\n"
    "  help [COMMAND]              this text, or one command's\n"
    "  --version                   the version\n"
    "\n"
    "Errors go to standard error as `<Kind>: <message>` and a line saying where.\n"
    "Exit status: 0 success, 1 internal error, 2 usage, 3 model file, 4 session, 5 input.\n";

constexpr const char* kInfo =
    "usage: onemodel info MODEL\n"
    "Prints the model's header, opset imports, inputs and outputs (element type and dimensions,\n"
    "symbolic names kept), and how many nodes use each operator, subgraphs included.\n";

constexpr const char* kDump =
    "usage: onemodel dump MODEL...\n"
    "       onemodel dump --each LIST --output-dir DIR\n"
    "Writes the structural dump of each model (spec/dump.md). With several models, each dump is\n"
    "preceded by `==> MODEL <==`. With --each, LIST names one model a line and the dump of line k\n"
    "(from 0) goes to DIR/<k>.txt; a model that cannot be read gets `error <Kind>: <message>` as\n"
    "its dump. Models that fail are reported and the exit status is 3, after all were tried.\n";

constexpr const char* kConvert =
    "usage: onemodel convert IN OUT\n"
    "       onemodel convert --each LIST --output-dir DIR\n"
    "Reads IN (ONNX, external data included, or the OneModel format) and writes it to OUT in the\n"
    "OneModel format (spec/format.md). With --each, line k (from 0) of LIST is written to\n"
    "DIR/<k>.onemodel; models that fail are reported and the exit status is 3, after all were tried.\n";

}  // namespace

const char* version_text() { return "onemodel 0.1.0"; }

int command_help(const Args& args, std::ostream& out) {
  if (args.empty()) {
    out << kOverview;
    return kExitOk;
  }
  if (args.size() > 1) throw UsageError("help takes at most one command name");
  if (args[0] == "info") {
    out << kInfo;
  } else if (args[0] == "dump") {
    out << kDump;
  } else if (args[0] == "convert") {
    out << kConvert;
  } else if (args[0] == "help") {
    out << kOverview;
  } else {
    throw UsageError("unknown command '" + args[0] + "'");
  }
  return kExitOk;
}

}  // namespace onemodel::cli
