// The statistics of a benchmark row (bench-method.md, "Procedure"), shared by bench_model_row and
// `onemodel bench` so both report the same numbers.
#pragma once

#include <vector>

namespace onemodel::refdata {

struct RepStats {
  double median = 0, min = 0, max = 0, spread_pct = 0;
};

// The median of the values (the mean of the middle two for an even count), their min and max,
// and the spread 100 * (max - min) / median. `values` must not be empty.
RepStats stats_of(std::vector<double> values);

// The p-th percentile (0 <= p <= 100) by the nearest-rank rule: the smallest value with at least
// p percent of the values at or below it. `values` must not be empty.
double percentile(std::vector<double> values, double p);

}  // namespace onemodel::refdata
