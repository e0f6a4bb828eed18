// What `onemodel profile` prints from a RunProfile (docs/command-line.md, profile): the per-node
// and per-operator-type tables, and the Chrome trace (Trace Event Format, "X" complete events).
#pragma once

#include <ostream>
#include <vector>

#include "onemodel/run_profile.hpp"

namespace onemodel::cli {

// Per node, in run order: share of the time in nodes, calls, total, mean and median time, kind,
// kernel path, operator type and name; then per operator type (type and kind), by share.
void print_profile_tables(const RunProfile& profile, std::ostream& out);

// The trace as JSON: one "X" event per recorded node call (ts and dur in microseconds from the
// profile's epoch; pid 1; tid 1 + the thread number), plus process and thread name metadata.
void write_chrome_trace(const RunProfile& profile, std::ostream& out);

// Median of durations (ns); 0 for none. Sorts `durations`.
double median_ns(std::vector<std::int64_t>& durations);

}  // namespace onemodel::cli
