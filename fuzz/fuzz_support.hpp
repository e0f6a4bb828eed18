// Shared by the libFuzzer targets in fuzz/: copying the input into an owned ByteView and
// reporting a finding (print, then abort so libFuzzer saves the input).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "diff/owned_bytes.hpp"
#include "onemodel/bytes.hpp"

namespace onemodel::fuzz {

// The wall time the operator and session fuzzers give one input's thirty-odd runs
// (diff::check_op_case's budget). tools/fuzz/run_fuzz.sh gives libFuzzer -timeout=10: an input
// still running 10 s after it started is a hang. A legitimately heavy model must stop well before
// that on a loaded CI core, so it is set aside after 3 s, leaving room for the node running when
// the deadline passes (the deadline is checked between nodes and between kernel chunks).
inline constexpr std::chrono::seconds kCaseBudget{3};

// The reader may keep views into the bytes, so they are owned by the ByteView's owner.
inline ByteView owned_view(const std::uint8_t* data, std::size_t size) { return diff::owned_bytes(data, size); }

[[noreturn]] inline void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "FINDING: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const char* what, const std::string& detail = {}) {
  if (!ok) finding(what, detail);
}

}  // namespace onemodel::fuzz
