#include "tools/refdata/rep_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace onemodel::refdata {

RepStats stats_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("stats_of: no values");
  std::sort(values.begin(), values.end());
  RepStats s;
  const std::size_t n = values.size();
  s.median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  s.min = values.front();
  s.max = values.back();
  s.spread_pct = s.median > 0 ? 100.0 * (s.max - s.min) / s.median : 0.0;
  return s;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) throw std::invalid_argument("percentile: no values");
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return values[std::min(index, values.size() - 1)];
}

}  // namespace onemodel::refdata
