// Exit statuses of the `onemodel` command line, one per error family (spec/errors.md section 4).
#pragma once

#include "onemodel/session_error.hpp"

namespace onemodel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;   // anything not listed below (a bug, out of memory)
inline constexpr int kExitUsage = 2;      // unknown command, bad or missing arguments
inline constexpr int kExitModelFile = 3;  // ModelError: the model file could not be read
inline constexpr int kExitSession = 4;    // session errors (commands that run models)
inline constexpr int kExitInput = 5;      // input errors (commands that run models)
inline constexpr int kExitMemoryLimit = 6;  // ResourceExhausted: a run would pass --memory-limit
inline constexpr int kExitCancelled = 7;    // Cancelled: a run passed its --deadline

// The status of a session error (spec/errors.md section 4.1).
inline int exit_status_of(SessionErrorKind kind) noexcept {
  switch (kind) {
    case SessionErrorKind::InvalidInput: return kExitInput;
    case SessionErrorKind::ResourceExhausted: return kExitMemoryLimit;
    case SessionErrorKind::Cancelled: return kExitCancelled;
    default: return kExitSession;
  }
}

}  // namespace onemodel::cli
