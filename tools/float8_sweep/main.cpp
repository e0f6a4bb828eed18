// Every binary32 bit pattern (2^32) narrowed to FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
// FLOAT8E5M2FNUZ (saturate on and off) and FLOAT8E8M0 (Up, Down, Nearest; saturate on and off) by
// onemodel::float_to_float8_bits and by double_to_float8_bits on the same value, compared with the
// independent statement of tests/support/float8_reference.hpp (the nearest entry of the table of
// values, ties to the even code; std::frexp for E8M0). The unit test
// (tests/unit/float8_conversion_test.cpp) covers every boundary and a strided million; this is the
// whole space, too long for CI: run it by hand after touching core/tensor/float8.cpp.
// Usage: float8_sweep [threads] [first job]. The jobs run in the order printed (0 to 13: the four
// formats with saturate on then off, then E8M0 Up, Down, Nearest with saturate on then off); a
// first job resumes a sweep that was stopped. Exit status 0 when every pattern agrees, 1 otherwise.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "onemodel/float8.hpp"
#include "tests/support/float8_reference.hpp"

namespace {

using onemodel::E8M0Rounding;
using onemodel::Float8Format;

struct Job {
  Float8Format format;
  bool saturate;
  E8M0Rounding rounding;
};

std::uint64_t sweep(const Job& job, std::uint64_t begin, std::uint64_t end) {
  const float8_reference::Table table(job.format == Float8Format::E8M0 ? Float8Format::E4M3FN : job.format);
  std::uint64_t mismatches = 0;
  for (std::uint64_t b = begin; b < end; ++b) {
    const auto bits = static_cast<std::uint32_t>(b);
    float x;
    std::memcpy(&x, &bits, sizeof x);
    const double d = static_cast<double>(x);
    const float8_reference::Expected want = job.format == Float8Format::E8M0
                                                ? float8_reference::encode_e8m0(d, job.saturate, job.rounding)
                                                : table.encode(d, job.saturate);
    const std::uint8_t got32 = onemodel::float_to_float8_bits(job.format, x, job.saturate, job.rounding);
    const std::uint8_t got64 = onemodel::double_to_float8_bits(job.format, d, job.saturate, job.rounding);
    if (float8_reference::matches(job.format, want, got32) && float8_reference::matches(job.format, want, got64)) continue;
    if (++mismatches <= 3) {
      std::printf("  format %d saturate %d rounding %d: 0x%08x -> 0x%02x / 0x%02x, the reference gives 0x%02x%s\n",
                  static_cast<int>(job.format), job.saturate ? 1 : 0, static_cast<int>(job.rounding), bits, got32, got64,
                  want.code, want.nan ? " (NaN)" : "");
    }
  }
  return mismatches;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned threads = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 2u;
  std::vector<Job> jobs;
  for (const Float8Format f : {Float8Format::E4M3FN, Float8Format::E4M3FNUZ, Float8Format::E5M2, Float8Format::E5M2FNUZ}) {
    for (const bool saturate : {true, false}) jobs.push_back({f, saturate, E8M0Rounding::Up});
  }
  for (const E8M0Rounding r : {E8M0Rounding::Up, E8M0Rounding::Down, E8M0Rounding::Nearest}) {
    for (const bool saturate : {true, false}) jobs.push_back({Float8Format::E8M0, saturate, r});
  }
  const std::size_t first = argc > 2 ? static_cast<std::size_t>(std::strtoul(argv[2], nullptr, 10)) : 0u;
  int failures = 0;
  constexpr std::uint64_t kAll = std::uint64_t{1} << 32;
  for (std::size_t j = first; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    std::atomic<std::uint64_t> mismatches{0};
    std::vector<std::thread> pool;
    const unsigned n = threads == 0 ? 1u : threads;
    for (unsigned t = 0; t < n; ++t) {
      pool.emplace_back([&, t] { mismatches += sweep(job, kAll * t / n, kAll * (t + 1) / n); });
    }
    for (std::thread& th : pool) th.join();
    std::printf("job %zu: format %-2d saturate %d rounding %d: %llu of 4294967296 patterns differ\n", j, static_cast<int>(job.format),
                job.saturate ? 1 : 0, static_cast<int>(job.rounding), static_cast<unsigned long long>(mismatches.load()));
    std::fflush(stdout);
    if (mismatches.load() != 0) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
