// The committed set of golden graphs. Each case is built on demand (its inputs come from a PRNG
// seeded by the case itself, so a case's data never depends on which other cases ran) and prints
// one line per graph output, `<case>/<output> <sha256>`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/golden/graph_builder.hpp"

namespace onemodel::golden {

struct GoldenCase {
  std::string name;
  bool quick = false;  // part of the reduced set (--quick) as well as the full one
  std::function<GoldenGraph()> build;
};

using CaseList = std::vector<GoldenCase>;

// One function per family, each in its own cases_<family>.cpp.
void add_matmul_cases(CaseList& cases);
void add_conv_cases(CaseList& cases);
void add_attention_cases(CaseList& cases);
void add_norm_cases(CaseList& cases);
void add_elementwise_cases(CaseList& cases);
void add_transcendental_cases(CaseList& cases);
void add_more_cases(CaseList& cases);
void add_half_cases(CaseList& cases);
void add_control_cases(CaseList& cases);
void add_int8_cases(CaseList& cases);
void add_random_cases(CaseList& cases);

// Every case, in the order the lines are printed.
CaseList all_cases();

// Float32 values that exercise the IEEE corners (exact-mode.md rules 3 and 4): signed zeros,
// infinities, NaNs of both signs and several payloads, the smallest and largest subnormals and
// normals, and ordinary values near 0 and 1.
std::vector<float> special_values();

}  // namespace onemodel::golden
