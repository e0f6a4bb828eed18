// The thread pool's own cost (a measurement, never a test): one parallel_for of `chunks` equal
// chunks of register-only arithmetic, `work` microseconds in all on one thread, timed at 1 and 2
// threads. Each line gives the call's time and the two-thread speed-up; with tiny chunks (a
// MaxPool's planes, an element-wise pass in pieces) the claims themselves, compare-and-swaps on a
// line both cores write, were what limited it (thread_pool.hpp, claim_chunks). Method after
// spec-source bench-method.md: the best of 7 repetitions of as many calls as fit in 0.2 s.
//
// Usage: bench_thread_pool [--chunks 8,36,144,600] [--work-us 20,50,200]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"

namespace {

volatile float g_sink;

// A dependent chain of multiply-adds: no memory traffic, so the pool's cost is what differs.
[[gnu::noinline]] void spin_work(std::size_t steps) {
  float x = 1.0f;
  for (std::size_t i = 0; i < steps; ++i) x = x * 1.0000001f + 1e-7f;
  g_sink = x;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> parse_list(const char* text) {
  std::vector<double> values;
  std::string s(text);
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    values.push_back(std::atof(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start).c_str()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

// Microseconds per call of parallel_for.
double time_call(onemodel::opt::ThreadPool& pool, std::size_t chunks, double work_us, std::size_t steps) {
  const auto body = [&](std::size_t) { spin_work(steps); };
  double best = 1e30;
  for (int rep = 0; rep < 7; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    long calls = 0;
    do {
      pool.parallel_for(chunks, work_us * 1000.0, body);
      ++calls;
    } while (seconds_since(start) < 0.2);
    best = std::min(best, seconds_since(start) * 1e6 / static_cast<double>(calls));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> chunk_counts{8, 36, 144, 600};
  std::vector<double> works{20, 50, 200};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--chunks") {
      chunk_counts = parse_list(argv[i + 1]);
    } else if (flag == "--work-us") {
      works = parse_list(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: bench_thread_pool [--chunks 8,36,144,600] [--work-us 20,50,200]\n");
      return 2;
    }
  }
  // Steps per microsecond of spin_work on this core.
  constexpr std::size_t kCalibration = 20000000;
  const auto start = std::chrono::steady_clock::now();
  spin_work(kCalibration);
  const double steps_per_us = static_cast<double>(kCalibration) / (seconds_since(start) * 1e6);
  std::printf("%8s %8s %14s %14s %9s\n", "chunks", "work_us", "1 thread us", "2 threads us", "speed-up");
  onemodel::opt::ThreadPool one(1), two(2);
  for (const double c : chunk_counts) {
    for (const double w : works) {
      const auto chunks = static_cast<std::size_t>(c);
      if (chunks == 0) continue;
      const auto steps = static_cast<std::size_t>(w * steps_per_us / c);
      const double t1 = time_call(one, chunks, w, steps);
      const double t2 = time_call(two, chunks, w, steps);
      std::printf("%8zu %8.0f %14.2f %14.2f %9.2f\n", chunks, w, t1, t2, t1 / t2);
      std::fflush(stdout);
    }
  }
  return 0;
}
