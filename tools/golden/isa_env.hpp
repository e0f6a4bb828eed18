// Sets ONEMODEL_ISA for this process. The library reads that variable when a session chooses its
// kernel path (optimized/frame/isa.hpp); node does not pass the shell's environment to an
// emscripten program, so the tool's --isa flag sets it from inside before any session exists.
#pragma once

#include <string>

namespace onemodel::golden {

// False when the environment could not be changed.
bool set_isa_environment(const std::string& isa);

}  // namespace onemodel::golden
