// `onemodel conformance DIR [--engine E] [--mode M] [--tsv FILE] [--filter SUBSTRING] [--twin-threads LIST]`
// (spec/conformance.md): runs ONNX backend-test cases and classifies each one. DIR is the data
// root (node/, simple/, pytorch-converted/, pytorch-operator/), one group's folder, or one case.
// Prints every fail, then `cases N pass P fail F unsupported-op U unsupported-type T not-exact X
// known-diff K`; progress goes to standard error. Exit status 1 when a case fails, else 0.
// --twin-threads 1,2 also runs the optimized engine at each thread count and fails a case whose
// outputs differ from this run's in any bit (whole-graph differential gating).
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/conformance/case_runner.hpp"
#include "onemodel/error.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/known_diffs.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

namespace fs = std::filesystem;
using conformance::CaseResult;
using conformance::CaseStatus;

// The groups of the method (conformance.md, Method: Data), in report order.
// spec/conformance.md section 4: a failing case is the only reason for a non-zero status; the
// caller (the checker, CI) decides what it means. Same number as kExitInternal, another meaning.
constexpr int kExitCasesFailed = 1;

constexpr std::array<const char*, 4> kGroups = {"node", "simple", "pytorch-converted", "pytorch-operator"};

struct CaseRef {
  std::string group;
  fs::path folder;
};

std::vector<fs::path> case_folders_in(const fs::path& group_folder) {
  std::vector<fs::path> cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(group_folder)) {
    if (entry.is_directory() && conformance::is_case_folder(entry.path())) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::vector<CaseRef> find_cases(const fs::path& given) {
  fs::path dir = given.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("conformance: '" + given.string() + "' is not a folder");
  std::vector<CaseRef> cases;
  if (conformance::is_case_folder(dir)) {
    const fs::path parent = fs::absolute(dir, ec).parent_path();
    cases.push_back({parent.filename().string(), dir});
    return cases;
  }
  bool is_root = false;
  for (const char* group : kGroups) {
    if (!fs::is_directory(dir / group, ec)) continue;
    is_root = true;
    for (const fs::path& folder : case_folders_in(dir / group)) cases.push_back({group, folder});
  }
  if (!is_root) {
    const std::string group = fs::absolute(dir, ec).filename().string();
    for (const fs::path& folder : case_folders_in(dir)) cases.push_back({group, folder});
  }
  return cases;
}

std::string tsv_field(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

}  // namespace

int command_conformance(const Args& args, std::ostream& out) {
  std::string dir;
  std::string tsv_path;
  std::string filter;
  SessionOptions options;
  options.engine = EngineKind::Reference;
  std::vector<int> twin_threads;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (parse_session_option("conformance", args, k, options)) continue;
    if (arg == "--twin-threads") {
      // Differential gating of whole graphs: the optimized engine at each thread count must give
      // this run's bits (DESIGN.md section 1).
      if (k + 1 >= args.size()) throw UsageError("conformance: --twin-threads needs a list such as 1,2");
      std::string list = args[++k];
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        if (item.empty() || item.size() > 3 || item.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(item) < 1 || std::stoi(item) > 256) {
          throw UsageError("conformance: --twin-threads takes thread counts 1 to 256 separated by commas");
        }
        twin_threads.push_back(std::stoi(item));
        start = comma + 1;
      }
      continue;
    }
    if (arg == "--tsv" || arg == "--filter") {
      if (k + 1 >= args.size()) throw UsageError("conformance: " + arg + " needs a value");
      (arg == "--tsv" ? tsv_path : filter) = args[++k];
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') throw UsageError("conformance: unknown option '" + arg + "'");
    if (!dir.empty()) throw UsageError("conformance takes one data folder");
    dir = arg;
  }
  if (dir.empty()) throw UsageError("conformance needs the backend-test data folder");
  // conformance.md, Method: Run: one intra-op thread unless asked otherwise.
  if (options.intra_op_threads == 0) options.intra_op_threads = 1;

  std::vector<SessionOptions> twins;
  for (int threads : twin_threads) {
    SessionOptions twin = options;
    twin.engine = EngineKind::Optimized;
    twin.intra_op_threads = threads;
    twins.push_back(twin);
  }

  std::vector<CaseRef> cases = find_cases(dir);
  if (!filter.empty()) {
    std::erase_if(cases, [&](const CaseRef& c) { return c.folder.filename().string().find(filter) == std::string::npos; });
  }

  std::ofstream tsv;
  if (!tsv_path.empty()) {
    tsv.open(tsv_path, std::ios::trunc);
    if (!tsv) throw ModelError(ModelErrorKind::Io, "cannot create the TSV file", tsv_path);
    tsv << "group\tcase\toperators\topset\tstatus\treason\n";
  }

  std::map<CaseStatus, std::int64_t> counts;
  std::size_t done = 0;
  for (const CaseRef& ref : cases) {
    const std::string name = ref.folder.filename().string();
    CaseResult result;
    try {
      // Known differences are checked inside the case, output by output, against their bounds.
      result = conformance::run_case(ref.folder, options, twins, known_differences_of(name));
    } catch (const std::exception& e) {  // run_case catches everything; this is a second net
      result.status = CaseStatus::Fail;
      result.reason = std::string("unexpected error: ") + e.what();
    }
    ++counts[result.status];
    if (result.status == CaseStatus::Fail) {
      out << "fail " << ref.group << "/" << name << ": " << tsv_field(result.reason) << "\n";
    }
    if (tsv.is_open()) {
      tsv << tsv_field(ref.group) << "\t" << tsv_field(name) << "\t" << tsv_field(join(result.operators, ",")) << "\t"
          << result.opset << "\t" << conformance::to_string(result.status) << "\t" << tsv_field(result.reason) << "\n";
    }
    ++done;
    if (done % 100 == 0) std::cerr << "conformance: " << done << " of " << cases.size() << " cases\n";
  }
  if (tsv.is_open()) {
    tsv.close();
    if (!tsv) throw ModelError(ModelErrorKind::Io, "cannot write the TSV file", tsv_path);
  }
  out << "cases " << cases.size() << " pass " << counts[CaseStatus::Pass] << " fail " << counts[CaseStatus::Fail]
      << " unsupported-op " << counts[CaseStatus::UnsupportedOp] << " unsupported-type "
      << counts[CaseStatus::UnsupportedType] << " not-exact " << counts[CaseStatus::NotExact] << " known-diff "
      << counts[CaseStatus::KnownDiff] << "\n";
  return counts[CaseStatus::Fail] > 0 ? kExitCasesFailed : kExitOk;
}

}  // namespace onemodel::cli
