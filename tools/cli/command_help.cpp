// `onemodel --help`, `onemodel help [COMMAND]` and the version text (docs/command-line.md).
#include <ostream>

#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

#ifndef ONEMODEL_VERSION
#define ONEMODEL_VERSION "unknown"
#endif

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
    "  run MODEL --input NAME=FILE.npy... [--mode fast|exact] [--engine optimized|reference]\n"
    "      [--threads N] [--memory-limit BYTES] [--deadline TIME] [--random-seed N]\n"
    "      [--output-dir DIR]\n"
    "                              run the model; one line per output with its SHA-256\n"
    "  profile MODEL --input NAME=FILE.npy... [--mode M] [--engine E] [--threads N]\n"
    "      [--warmup N] [--runs N] [--trace FILE]\n"
    "                              time per node and per operator type over warm runs\n"
    "  bench MODEL [--input NAME=FILE.npy...] [--mode M] [--engine E] [--threads N] [--reps N]\n"
    "      [--warmup N] [--target-seconds S] [--max-calls N] [--json FILE|-]\n"
    "                              time per call as the bar measures it, allocations, peak RSS\n"
    "  conformance DIR [--engine E] [--mode M] [--tsv FILE] [--filter TEXT] [--twin-threads L]\n"
    "                              run the ONNX backend test cases under DIR and classify each\n"
    "  check REFDIR... [--model PATH] [--engine optimized|reference|both] [--modes fast,exact]\n"
    "      [--threads 1,2] [--repeat N] [--gate 1e-4] [--dump DIR] [--allow-blocked]\n"
    "                              compare with ONNX Runtime's stored reference outputs\n"
    "  operators                   the operator table as TSV (spec/operators.tsv)\n"
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

constexpr const char* kRun =
    "usage: onemodel run MODEL --input NAME=FILE.npy... [--mode fast|exact]\n"
    "                      [--engine optimized|reference] [--threads N]\n"
    "                      [--memory-limit BYTES] [--deadline TIME] [--random-seed N]\n"
    "                      [--output-dir DIR]\n"
    "Runs the model once. Every input is given as a .npy file by name. Each output is printed as\n"
    "`<name> <dtype> [<dims>] sha256=<hex of its little-endian element bytes>` and, with\n"
    "--output-dir, written to DIR/<name>.npy. --memory-limit caps what one run may allocate\n"
    "(bytes, or with a K, M or G suffix; default 8G): over it the run stops with\n"
    "ResourceExhausted, exit status 6. --deadline stops a run still going after TIME (seconds,\n"
    "or milliseconds with an ms suffix) with Cancelled, exit status 7. --random-seed N keys the\n"
    "draws of random operators without a seed attribute (default 0).\n";

constexpr const char* kBench =
    "usage: onemodel bench MODEL [--input NAME=FILE.npy...] [--mode fast|exact]\n"
    "                        [--engine optimized|reference] [--threads N] [--weights W]\n"
    "                        [--warmup N] [--reps N] [--target-seconds S] [--max-calls N]\n"
    "                        [--json FILE|-]\n"
    "The bar's procedure on one model (bench-method.md): load (timed), one cold call, --warmup\n"
    "calls (default 3), then --reps repetitions (default 3) of as many calls as fit in about\n"
    "--target-seconds (default 1, at most --max-calls, default 1000). Prints the median of the\n"
    "repetitions' mean time per call (the bar's figure) with min, max and spread; the median,\n"
    "p90 and min of single calls; heap allocations per warm call on the calling thread; peak\n"
    "RSS; load time; the CPU. --json writes the same as one JSON object (- for standard output).\n"
    "Inputs not given are made when their shape is fixed: float inputs a fixed pattern in\n"
    "[-1, 1], others zeros; an input with a symbolic extent must be given. A progress bar goes\n"
    "to standard error when it is a terminal.\n";

constexpr const char* kProfile =
    "usage: onemodel profile MODEL --input NAME=FILE.npy... [--mode fast|exact]\n"
    "                          [--engine optimized|reference] [--threads N] [--memory-limit BYTES]\n"
    "                          [--warmup N] [--runs N] [--trace FILE]\n"
    "Runs the model --warmup times (default 2), then --runs times (default 10) timing every node\n"
    "of the main graph (a subgraph body counts in its If, Loop or Scan node). Prints per node, in\n"
    "run order: its share of the time in nodes, calls, total, mean and median microseconds, what\n"
    "runs it (optimized override, fused: a kernel a graph pass made, or reference; `(fallback)`\n"
    "when an override handed a call to its reference kernel), the instruction-set path, the\n"
    "operator type and the node name (`-` when it has none); then the same per operator type, by\n"
    "share; then the outputs of the last run as `run` prints them. --trace writes every node call\n"
    "as a Chrome trace (Trace Event Format JSON) for chrome://tracing or Perfetto.\n";

constexpr const char* kConformance =
    "usage: onemodel conformance DIR [--engine optimized|reference] [--mode fast|exact]\n"
    "                              [--memory-limit BYTES] [--tsv FILE] [--filter TEXT]\n"
    "                              [--twin-threads LIST]\n"
    "Runs every ONNX backend test case under DIR (the data root, one group such as .../node, or\n"
    "one case) with the method of spec/conformance.md and classifies each as pass, fail,\n"
    "unsupported-op, unsupported-type, not-exact or known-diff, then prints the summary line.\n"
    "--tsv writes one row per case. --twin-threads 1,2 also runs the optimized engine at each\n"
    "thread count and fails a case whose outputs differ from this run's in any bit.\n"
    "The exit status is 1 when any case fails.\n";

constexpr const char* kCheck =
    "usage: onemodel check REFDIR... [--model PATH] [--engine optimized|reference|both]\n"
    "                      [--modes fast,exact] [--threads 1,2] [--repeat N] [--gate 1e-4]\n"
    "                      [--dump DIR] [--allow-blocked]\n"
    "Runs the inputs stored in each reference directory (index.json, inputs/*.npy, outputs/*.npy,\n"
    "written from ONNX Runtime) through one session per engine, mode and thread count, --repeat\n"
    "times (default 2), and prints one tab-separated row per output: the scaled error\n"
    "max|ours-ref|/max|ref| (gated, default 1e-4; non-float outputs must match exactly), the\n"
    "element-wise error max|ours-ref|/max(|ref|,1e-6) (reported) and the first 16 hex digits of the\n"
    "SHA-256 of the output. The summary requires each output's hashes to be equal over all thread\n"
    "counts and runs. --model overrides the index's model_file; --dump writes our outputs as .npy\n"
    "under DIR. A model with missing operators is blocked, which fails unless --allow-blocked.\n"
    "Defaults: --engine optimized --modes fast,exact --threads 1,2. The last line is `check: PASS`\n"
    "or `check: FAIL (<reasons>)`; the exit status is 0 only on PASS.\n";

}  // namespace

const char* version_text() { return "onemodel " ONEMODEL_VERSION; }

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
  } else if (args[0] == "run") {
    out << kRun;
  } else if (args[0] == "profile") {
    out << kProfile;
  } else if (args[0] == "bench") {
    out << kBench;
  } else if (args[0] == "conformance") {
    out << kConformance;
  } else if (args[0] == "check") {
    out << kCheck;
  } else if (args[0] == "help") {
    out << kOverview;
  } else {
    throw UsageError("unknown command '" + args[0] + "'");
  }
  return kExitOk;
}

}  // namespace onemodel::cli
