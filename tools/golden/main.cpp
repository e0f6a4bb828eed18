// golden: builds the committed golden graphs in code, runs each once in exact mode and prints
// `<case>/<output> <sha256>` per output (spec-source golden-hashes.md, "Method"; the hash in
// tensor_hash.hpp). Exact mode promises the same bits on every instruction-set path, thread count
// and platform (exact-mode.md), so these lines must be equal everywhere; tests/golden/ holds the
// expected lines, made by the reference engine.
//
//   golden [--engine reference|optimized] [--threads N] [--isa scalar|sse|avx2|avx512] [--quick]
//          [--only TEXT] [--list] [--expect FILE] [--verbose]
//   golden --node-cases DIR [--write FILE | --check FILE] [--engine ...] [--threads N] [--isa ...]
//          [--only TEXT] [--verbose]     the ONNX backend node cases instead (node_case_command.hpp)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/golden/case_runner.hpp"
#include "tools/golden/ctc_rows.hpp"
#include "tools/golden/expect_file.hpp"
#include "tools/golden/golden_case.hpp"
#include "tools/golden/isa_env.hpp"
#include "tools/golden/node_case_command.hpp"

namespace {

using namespace onemodel;
using namespace onemodel::golden;

struct Options {
  SessionOptions session;
  bool quick = false;
  bool list = false;
  bool verbose = false;
  std::string only;
  std::string expect;
  std::string node_cases;  // --node-cases DIR
  std::string write;       // with --node-cases
  std::string check;       // with --node-cases
  bool ctc = false;        // --ctc: the CTC decoder rows instead of the graphs
};

void usage() {
  std::cerr << "usage: golden [--engine reference|optimized] [--threads N] [--isa scalar|sse|avx2|avx512]\n"
               "              [--quick] [--only TEXT] [--list] [--expect FILE] [--verbose]\n"
               "       golden --node-cases DIR [--write FILE | --check FILE] [--engine E] [--threads N]\n"
               "              [--isa I] [--only TEXT] [--verbose]\n"
               "  Runs the golden graphs in exact mode and prints `<case>/<output> <sha256>` lines.\n"
               "  --expect FILE compares with FILE instead, prints what differs, exits 1 on any\n"
               "  difference or missing line. ONEMODEL_ISA (or --isa) caps the kernel path.\n"
               "  --node-cases DIR hashes every backend node case under DIR (`case/<name> <sha256>`\n"
               "  and an aggregate); --write FILE (reference engine) writes the committed file,\n"
               "  --check FILE compares with it.\n"
               "  --ctc prints (or with --expect compares) the CTC decoder rows instead of the graphs\n"
               "  (tools/golden/ctc_rows.hpp, tests/golden/golden-ctc.txt).\n";
}

bool parse(int argc, char** argv, Options& o) {
  o.session.engine = EngineKind::Optimized;
  o.session.intra_op_threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--engine") {
      const std::string v = value();
      if (v == "reference") o.session.engine = EngineKind::Reference;
      else if (v == "optimized") o.session.engine = EngineKind::Optimized;
      else throw std::runtime_error("unknown engine " + v);
    } else if (arg == "--threads") {
      o.session.intra_op_threads = std::stoi(value());
    } else if (arg == "--isa") {
      if (!set_isa_environment(value())) throw std::runtime_error("cannot set ONEMODEL_ISA");
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--only") {
      o.only = value();
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--expect") {
      o.expect = value();
    } else if (arg == "--node-cases") {
      o.node_cases = value();
    } else if (arg == "--write") {
      o.write = value();
    } else if (arg == "--check") {
      o.check = value();
    } else if (arg == "--ctc") {
      o.ctc = true;
    } else if (arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "--help" || arg == "-h") {
      usage();
      std::exit(0);
    } else {
      throw std::runtime_error("unknown option " + arg);
    }
  }
  return true;
}

// Prints the lines, or compares them with o.expect; the exit status of the tool.
int report(const Options& o, const std::vector<HashLine>& lines, int errors) {
  if (o.expect.empty()) {
    for (const HashLine& line : lines) std::cout << line.name << " " << line.hash << "\n";
    return errors == 0 ? 0 : 1;
  }
  const std::map<std::string, std::string> expected = read_expect_file(o.expect);
  // The full set must produce every expected line; a reduced or filtered set a subset of them.
  const Comparison cmp = compare_lines(lines, expected, !o.quick && o.only.empty());
  for (const std::string& name : cmp.differing) {
    std::cout << "DIFFERS " << name << " got " << [&] {
      for (const HashLine& l : lines) {
        if (l.name == name) return l.hash;
      }
      return std::string();
    }() << " expected " << expected.at(name) << "\n";
  }
  for (const std::string& name : cmp.unexpected) std::cout << "MISSING-EXPECTED " << name << "\n";
  for (const std::string& name : cmp.not_produced) std::cout << "NOT-PRODUCED " << name << "\n";
  std::cout << "golden: " << lines.size() << " lines compared with " << o.expect << ": " << cmp.differing.size()
            << " differ, " << cmp.unexpected.size() << " not in the file, " << cmp.not_produced.size()
            << " not produced\n";
  return cmp.ok() && errors == 0 ? 0 : 1;
}

int run(const Options& o) {
  if (o.ctc) {
    if (o.quick || o.list || !o.only.empty()) throw std::runtime_error("--ctc takes no --quick, --list or --only");
    return report(o, ctc_lines(), 0);
  }
  if (o.session.engine == EngineKind::Optimized) {
    const std::string missing = unavailable_isa_cap();
    if (!missing.empty()) {
      std::cout << "golden: kernel path " << missing << " is not available on this CPU: not run\n";
      return kNotAvailable;
    }
  }
  std::vector<GoldenCase> selected;
  for (GoldenCase& c : all_cases()) {
    if (o.quick && !c.quick) continue;
    if (!o.only.empty() && c.name.find(o.only) == std::string::npos) continue;
    selected.push_back(std::move(c));
  }
  if (o.list) {
    for (const GoldenCase& c : selected) std::cout << c.name << (c.quick ? " quick" : "") << "\n";
    return 0;
  }
  // Read before the run so a bad file fails at once.
  if (!o.expect.empty()) (void)read_expect_file(o.expect);

  std::vector<HashLine> lines;
  int errors = 0;
  std::string kernel_path;
  const auto start = std::chrono::steady_clock::now();
  for (const GoldenCase& c : selected) {
    const auto case_start = std::chrono::steady_clock::now();
    CaseResult result = run_case(c, o.session);
    if (kernel_path.empty()) kernel_path = result.kernel_path;
    if (!result.error.empty()) {
      ++errors;
      std::cerr << "golden: " << c.name << ": " << result.error << "\n";
    }
    if (o.verbose) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start).count();
      std::cerr << "golden: " << c.name << " " << static_cast<long long>(ms) << " ms\n";
    }
    for (HashLine& line : result.lines) {
      if (o.expect.empty()) std::cout << line.name << " " << line.hash << "\n" << std::flush;
      lines.push_back(std::move(line));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "golden: " << selected.size() << " graphs, " << lines.size() << " outputs, engine "
            << (o.session.engine == EngineKind::Reference ? "reference" : "optimized") << ", kernel path "
            << kernel_path << ", threads " << o.session.intra_op_threads << ", " << seconds << " s\n";
  if (o.expect.empty()) return errors == 0 ? 0 : 1;
  return report(o, lines, errors);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    parse(argc, argv, o);
    if (!o.node_cases.empty()) {
      if (o.quick || o.list || !o.expect.empty()) throw std::runtime_error("--node-cases takes no --quick, --list or --expect");
      if (!o.write.empty() && !o.check.empty()) throw std::runtime_error("--write and --check exclude each other");
      return run_node_case_command(NodeCaseCommand{o.node_cases, o.write, o.check, o.only, o.verbose, o.session});
    }
    if (!o.write.empty() || !o.check.empty()) throw std::runtime_error("--write and --check go with --node-cases");
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "golden: " << e.what() << "\n";
    usage();
    return 2;
  }
}
