#include "tools/golden/node_case_command.hpp"

#include <chrono>
#include <iostream>
#include <map>
#include <stdexcept>
#include <vector>

#include "tools/golden/expect_file.hpp"
#include "tools/golden/isa_env.hpp"
#include "tools/golden/node_case_file.hpp"
#include "tools/golden/node_cases.hpp"
#include "tools/golden/tensor_hash.hpp"

namespace onemodel::golden {
namespace {

HashLine split_line(const std::string& line) {
  const std::size_t space = line.find(' ');
  return {line.substr(0, space), line.substr(space + 1)};
}

std::vector<std::string> file_header(const std::map<std::string, int>& counts,
                                     std::size_t cases) {
  std::vector<std::string> header = {
      "Golden node set (tools/golden/README.md, \"Node cases\"): every ONNX backend node case run once in",
      "exact mode by the REFERENCE engine; never regenerate from the optimized engine.",
      "Regenerate: tools/golden/update_node_cases.sh (builds golden, runs",
      "  golden --engine reference --node-cases DIR --write tests/golden/node-cases-exact.txt).",
      "Data: the " + std::to_string(cases) + " ONNX 1.22.0 backend node cases (../shared/onnx-backend-test/node).",
      "Line: case/<name> <SHA-256 over every output of every data set, in order: element type code,",
      "  rank, extents as little-endian int64, then the elements row-major>.",
      "Marker " + not_exact_marker() + " = SHA-256(\"onemodel-golden:not-exact\"):",
      "  the case cannot run in exact mode (no exact kernel, operator or type not served, error).",
      "aggregate = SHA-256 of the case lines sorted bytewise, each ending in \"\\n\":",
      "  grep '^case/' FILE | LC_ALL=C sort | sha256sum"};
  std::string tally = "Outcomes when written:";
  for (const auto& [name, count] : counts) tally += " " + name + " " + std::to_string(count);
  header.push_back(tally);
  return header;
}

// Compares with the committed file; prints what differs. True when equal.
bool check_against(const NodeCaseCommand& command, const std::vector<std::string>& lines) {
  std::map<std::string, std::string> expected = read_expect_file(command.check);
  const auto aggregate = expected.find("aggregate");
  if (aggregate == expected.end()) throw std::runtime_error(command.check + " has no aggregate line");
  const std::string expected_aggregate = aggregate->second;
  expected.erase(aggregate);
  bool ok = true;
  std::vector<std::string> file_lines;
  for (const auto& [name, hash] : expected) file_lines.push_back(name + " " + hash);
  if (node_case_aggregate(file_lines) != expected_aggregate) {
    std::cout << "BAD-FILE the aggregate line of " << command.check << " does not match its case lines\n";
    ok = false;
  }
  std::vector<HashLine> produced;
  for (const std::string& line : lines) produced.push_back(split_line(line));
  const bool full = command.only.empty();
  const Comparison cmp = compare_lines(produced, expected, full);
  for (const std::string& name : cmp.differing) {
    for (const HashLine& line : produced) {
      if (line.name == name) std::cout << "DIFFERS " << name << " got " << line.hash << " expected " << expected.at(name) << "\n";
    }
  }
  for (const std::string& name : cmp.unexpected) std::cout << "MISSING-EXPECTED " << name << "\n";
  for (const std::string& name : cmp.not_produced) std::cout << "NOT-PRODUCED " << name << "\n";
  ok = ok && cmp.ok();
  if (full) {
    const std::string got = node_case_aggregate(lines);
    std::cout << "golden: aggregate " << got << (got == expected_aggregate ? " equals" : " DIFFERS from") << " the file's\n";
    ok = ok && got == expected_aggregate;
  }
  std::cout << "golden: " << lines.size() << " node cases compared with " << command.check << ": "
            << cmp.differing.size() << " differ, " << cmp.unexpected.size() << " not in the file, "
            << cmp.not_produced.size() << " not produced\n";
  return ok;
}

}  // namespace

int run_node_case_command(const NodeCaseCommand& command) {
  if (!command.write.empty() && command.session.engine != EngineKind::Reference) {
    throw std::runtime_error("--write takes the reference engine only (--engine reference)");
  }
  if (!command.write.empty() && !command.only.empty()) throw std::runtime_error("--write takes the whole set");
  if (command.session.engine == EngineKind::Optimized) {
    const std::string missing = unavailable_isa_cap();
    if (!missing.empty()) {
      std::cout << "golden: kernel path " << missing << " is not available on this CPU: not run\n";
      return kNotAvailable;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> lines;
  std::map<std::string, int> counts;
  std::string kernel_path;
  std::size_t cases = 0;
  for (const auto& folder : node_case_folders(command.dir)) {
    if (!command.only.empty() && folder.filename().string().find(command.only) == std::string::npos) continue;
    ++cases;
    const auto case_start = std::chrono::steady_clock::now();
    const NodeCaseResult result = run_node_case(folder, command.session);
    if (kernel_path.empty()) kernel_path = result.kernel_path;
    ++counts[outcome_name(result.outcome)];
    if (command.verbose) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start).count();
      std::cerr << "golden: " << folder.filename().string() << " " << outcome_name(result.outcome) << " "
                << static_cast<long long>(ms) << " ms" << (result.reason.empty() ? "" : ": " + result.reason) << "\n";
    }
    if (command.write.empty() && command.check.empty()) std::cout << result.line << "\n";
    lines.push_back(result.line);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "golden: " << cases << " node cases, engine "
            << (command.session.engine == EngineKind::Reference ? "reference" : "optimized") << ", kernel path "
            << kernel_path << ", threads " << command.session.intra_op_threads << ", " << seconds << " s:";
  for (const auto& [name, count] : counts) std::cerr << " " << name << " " << count;
  std::cerr << "\n";
  if (!command.write.empty()) {
    write_node_case_file(command.write, file_header(counts, cases), lines);
    std::cout << "golden: wrote " << lines.size() << " lines and aggregate " << node_case_aggregate(lines) << " to "
              << command.write << "\n";
    return 0;
  }
  if (!command.check.empty()) return check_against(command, lines) ? 0 : 1;
  if (command.only.empty()) std::cout << "aggregate " << node_case_aggregate(lines) << "\n";
  return 0;
}

}  // namespace onemodel::golden
