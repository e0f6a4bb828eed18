// Exit statuses of the `onemodel` command line, one per error family (spec/errors.md section 4).
#pragma once

namespace onemodel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;   // anything not listed below (a bug, out of memory)
inline constexpr int kExitUsage = 2;      // unknown command, bad or missing arguments
inline constexpr int kExitModelFile = 3;  // ModelError: the model file could not be read
inline constexpr int kExitSession = 4;    // session errors (commands that run models)
inline constexpr int kExitInput = 5;      // input errors (commands that run models)

}  // namespace onemodel::cli
