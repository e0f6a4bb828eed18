// setenv is POSIX, not ISO C++: ask for it explicitly (emscripten's libc hides it otherwise).
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>

#include "tools/golden/isa_env.hpp"

namespace onemodel::golden {

bool set_isa_environment(const std::string& isa) { return setenv("ONEMODEL_ISA", isa.c_str(), 1) == 0; }

}  // namespace onemodel::golden
