// setenv is POSIX, not ISO C++: ask for it explicitly (emscripten's libc hides it otherwise).
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>

#include "tools/golden/isa_env.hpp"

#include "optimized/frame/isa.hpp"

namespace onemodel::golden {

bool set_isa_environment(const std::string& isa) { return setenv("ONEMODEL_ISA", isa.c_str(), 1) == 0; }

std::string unavailable_isa_cap() {
  const char* value = getenv("ONEMODEL_ISA");
  opt::Isa isa = opt::Isa::Scalar;
  if (value == nullptr || !opt::isa_from_name(value, isa)) return {};
  // Levels, not names: "sse" is the 128-bit level of every platform (optimized/frame/isa.hpp).
  return opt::isa_level(isa) > opt::isa_level(opt::available_isas().back()) ? std::string(value) : std::string();
}

}  // namespace onemodel::golden
