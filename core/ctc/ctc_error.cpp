// The decoder's error type (spec/ctc.md section 6): "<Kind>: <message>" like the library's others.
#include "onemodel/ctc.hpp"

namespace onemodel::ctc {

const char* to_string(CtcErrorKind kind) noexcept {
  switch (kind) {
    case CtcErrorKind::InvalidArgument: return "InvalidArgument";
    case CtcErrorKind::InvalidScores: return "InvalidScores";
    case CtcErrorKind::TooLarge: return "TooLarge";
  }
  return "Unknown";
}

CtcError::CtcError(CtcErrorKind kind, std::string message)
    : std::runtime_error(std::string(to_string(kind)).append(": ").append(message)),
      kind_(kind),
      message_(std::move(message)) {}

std::vector<std::int32_t> GreedyResult::labels() const {
  std::vector<std::int32_t> out;
  out.reserve(runs.size());
  for (const CtcRun& run : runs) out.push_back(run.label);
  return out;
}

}  // namespace onemodel::ctc
