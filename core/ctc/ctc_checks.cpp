#include "core/ctc/ctc_checks.hpp"

#include <cstdint>
#include <limits>

namespace onemodel::ctc::detail {

void fail(CtcErrorKind kind, const std::string& message) { throw CtcError(kind, message); }

void check_scores_shape(std::span<const float> scores, std::size_t batch, std::size_t steps, std::size_t classes,
                        std::size_t blank) {
  constexpr auto kMax32 = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (classes == 0) fail(CtcErrorKind::InvalidArgument, "classes must be at least 1");
  if (classes > kMax32) {
    fail(CtcErrorKind::InvalidArgument, "classes " + std::to_string(classes) + " exceed the 32-bit label range");
  }
  if (steps > kMax32) {
    fail(CtcErrorKind::InvalidArgument, "steps " + std::to_string(steps) + " exceed the 32-bit step range");
  }
  if (blank >= classes) {
    fail(CtcErrorKind::InvalidArgument,
         "blank class " + std::to_string(blank) + " is not below the class count " + std::to_string(classes));
  }
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  if (steps != 0 && classes > max / steps) fail(CtcErrorKind::InvalidArgument, "steps * classes overflows");
  const std::size_t per_item = steps * classes;
  if (per_item != 0 && batch > max / per_item) fail(CtcErrorKind::InvalidArgument, "batch * steps * classes overflows");
  const std::size_t expected = batch * per_item;
  if (scores.size() != expected) {
    fail(CtcErrorKind::InvalidArgument, "scores hold " + std::to_string(scores.size()) + " values, the shape [" +
                                            std::to_string(batch) + ", " + std::to_string(steps) + ", " +
                                            std::to_string(classes) + "] needs " + std::to_string(expected));
  }
}

}  // namespace onemodel::ctc::detail
