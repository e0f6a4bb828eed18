// The pieces the ulp measuring tools (tools/f64_ulp, tools/pow_ulp, tools/trig_ulp,
// tools/ulp_table) share: their "--option N" reading, the split of a sweep over threads, the error
// of a float32 result against a long double reference, the CPU name every measurement records
// (DESIGN.md section 4) and the rewrite of a tool's own section of docs/transcendentals-ulp.md.
// Header-only: each tool is one translation unit linked with mpfr and gmp.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "reference/math/float_bits.hpp"
#include "tests/support/mpfr_reference.hpp"

namespace onemodel::ulp_tools {

// The bit-pattern conversions of the exact functions themselves.
using exact::detail::bits64_of;
using exact::detail::bits_of;
using exact::detail::double_from_bits;
using exact::detail::float_from_bits;

// Reads the pairs "--name N" that follow argv[1]; N must be a positive number. `set` takes one
// pair and returns false for a name it does not know. False (after a message on stderr) when a
// number or a name is refused: the tool then exits with status 2.
inline bool read_positive_options(int argc, char** argv,
                                  const std::function<bool(const std::string& name, long long value)>& set) {
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (v < 1) {
      std::fprintf(stderr, "%s needs a positive number\n", opt.c_str());
      return false;
    }
    if (!set(opt, v)) {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      return false;
    }
  }
  return true;
}

// Runs part(t) for each t in [0, threads), each on a thread of its own; the results in the order
// of t, so that a tool's merge does not depend on which thread finished first.
template <class Partial, class Part>
std::vector<Partial> run_in_threads(unsigned threads, const Part& part) {
  std::vector<Partial> parts(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&parts, &part, t] { parts[t] = part(t); });
  }
  for (auto& w : workers) w.join();
  return parts;
}

// |got - ref| in float32 spacings at float(ref), the correctly rounded value when the reference is
// far more precise than a float; an infinite got equal to float(ref) is 0, any other non-finite got
// an infinite error.
inline double float_ulp_error(float got, long double ref) {
  const float rounded = static_cast<float>(ref);
  if (!std::isfinite(got)) return (std::isinf(got) && got == rounded) ? 0.0 : std::numeric_limits<double>::infinity();
  const long double d = std::fabs(static_cast<long double>(got) - ref);
  return static_cast<double>(std::ldexp(d, -testing::MpfrReference::spacing_exponent(rounded)));
}

// Wall time since `start`, in seconds.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A finished table row: printed at once (a long sweep shows its progress) and added to the table.
inline void emit_row(std::string& table, const char* line) {
  std::fputs(line, stdout);
  std::fflush(stdout);
  table += line;
}

// The "model name" of /proc/cpuinfo, "unknown CPU" where there is none.
inline std::string cpu_model_name() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

// Rewrites the markdown file at `path` with `section` as this tool's part: the text before `marker`
// is kept (its trailing newlines replaced by one blank line), and so is the text from `kept_marker`
// on, the section of a tool written after this one (none when kept_marker is null), after a newline.
// False (after a message on stderr) when the file cannot be written.
inline bool write_section(const char* path, const char* marker, const char* kept_marker, const std::string& section) {
  std::string head;
  std::string kept_after;
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    head = ss.str();
    const std::size_t kept_at = kept_marker == nullptr ? std::string::npos : head.find(kept_marker);
    if (kept_at != std::string::npos) {
      kept_after = head.substr(kept_at);
      kept_after.insert(kept_after.begin(), '\n');  // not "\n" + string: GCC 12 bug 105329 warns
      head.resize(kept_at);
    }
    const std::size_t at = head.find(marker);
    if (at != std::string::npos) head.resize(at);
    while (!head.empty() && head.back() == '\n') head.pop_back();
    if (!head.empty()) head += "\n\n";
  }
  std::ofstream out(path, std::ios::binary);
  out << head << section << kept_after;
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path);
    return false;
  }
  return true;
}

}  // namespace onemodel::ulp_tools
