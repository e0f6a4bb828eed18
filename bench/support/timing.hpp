// The measurement of the benchmark programs bench/<name>/main.cpp (kernels-gemm.md, "Measuring
// exact against fast"): the median over three repetitions of the mean time of calls run for at
// least `min_seconds` after two warm-up calls, with the process CPU time per call in that
// repetition, which other programs loading the machine disturb less than the wall-clock time.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace onemodel::bench {

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Timing {
  double wall = 0;  // seconds per call, the median repetition
  double cpu = 0;   // process CPU seconds per call in that repetition
};

inline Timing measure(const std::function<void()>& call, double min_seconds = 0.08) {
  call();
  call();
  std::vector<Timing> reps;
  for (int rep = 0; rep < 3; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_seconds();
    int calls = 0;
    double elapsed = 0;
    do {
      call();
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < min_seconds);
    reps.push_back(Timing{elapsed / calls, (process_cpu_seconds() - cpu_start) / calls});
  }
  std::sort(reps.begin(), reps.end(), [](const Timing& a, const Timing& b) { return a.wall < b.wall; });
  return reps[1];
}

}  // namespace onemodel::bench
