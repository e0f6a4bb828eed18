// Replayable counterexamples of the differential gate (DESIGN.md section 1): one operator case
// (attributes, inputs with their exact bytes), the path and thread count where the engines
// differed, and both engines' output hashes, saved as a cereal JSON archive. A property that
// finds a difference saves the case it has shrunk to; copied into tests/diff/regressions/, it is
// replayed by tests/unit/diff_regressions_test.cpp on every path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"

namespace onemodel::diff {

struct SavedTensor {
  bool defined = false;
  std::int32_t dtype = 0;
  std::vector<std::int64_t> shape;
  std::string hex;  // the row-major element bytes, two hex digits each
};

struct SavedAttribute {
  std::string name;
  std::int32_t type = 0;  // AttrType
  std::int64_t i = 0;
  std::uint32_t f_bits = 0;
  std::string s;
  std::vector<std::int64_t> ints;
  std::vector<std::uint32_t> floats_bits;
};

struct Counterexample {
  std::string property;
  std::string op;
  std::int64_t opset = 0;
  std::vector<SavedAttribute> attributes;
  std::vector<SavedTensor> inputs;
  std::vector<std::int32_t> constant;  // OpCase::constant as 0/1
  std::uint64_t outputs = 1;
  std::string isa;  // where it differed
  std::int32_t threads = 1;
  std::string reference_hash;
  std::string optimized_hash;
  std::string difference;
};

Counterexample make_counterexample(const std::string& property, const OpCase& c);
OpCase case_of(const Counterexample& saved);

void save_counterexample(const Counterexample& saved, const std::filesystem::path& file);
Counterexample load_counterexample(const std::filesystem::path& file);

// The exact-mode gate: the case through the reference kernel once and through the optimized
// engine's kernel on every path the machine has at 1 and 2 threads. Empty when every run gives
// the reference bits; else the first difference, after saving the case as
// $ONEMODEL_COUNTEREXAMPLE_DIR/<property>.json (default build/counterexamples/). `tally`, when
// given, gets every optimized run added (what ran, whether two threads shared the work).
std::string check_everywhere(const OpCase& c, const std::string& property, RunTally* tally = nullptr);

}  // namespace onemodel::diff
