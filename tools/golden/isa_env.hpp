// Sets ONEMODEL_ISA for this process. The library reads that variable when a session chooses its
// kernel path (optimized/frame/isa.hpp); node does not pass the shell's environment to an
// emscripten program, so the tool's --isa flag sets it from inside before any session exists.
#pragma once

#include <string>

namespace onemodel::golden {

// False when the environment could not be changed.
bool set_isa_environment(const std::string& isa);

// The ONEMODEL_ISA value when it names a path above the best one this CPU runs (avx512 on a CPU
// without AVX-512), empty otherwise. Capping there would silently run a lower path, so the tool
// reports such a run as not available instead of as a pass (exit status kNotAvailable; CTest's
// SKIP_RETURN_CODE, tests/cmake/golden.cmake).
std::string unavailable_isa_cap();
inline constexpr int kNotAvailable = 77;

}  // namespace onemodel::golden
