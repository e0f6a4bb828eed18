// A command line that cannot be carried out as written: unknown command or option, a missing or
// extra argument. Printed as `Usage: <message>`, exit status 2 (spec/errors.md section 4).
#pragma once

#include <stdexcept>
#include <string>

namespace onemodel::cli {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace onemodel::cli
