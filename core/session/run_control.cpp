#include "core/session/run_control.hpp"

#include "onemodel/session_error.hpp"

namespace onemodel {

RunControl::RunControl(std::int64_t memory_limit_bytes, const RunOptions& options) noexcept
    : limit_(memory_limit_bytes), cancel_(options.cancel), deadline_(options.deadline), profile_(options.profile), random_seed_(options.random_seed) {}

RunControl::RunControl(const RunControl& parent, Nested) noexcept
    : limit_(parent.limit_ - parent.live_), cancel_(parent.cancel_), deadline_(parent.deadline_), random_seed_(parent.random_seed_) {}

void RunControl::charge(std::int64_t bytes, std::string_view what) {
  // spec/session.md section 7: refused before anything is allocated. live_ never exceeds
  // limit_, so limit_ - live_ cannot overflow and bytes is compared without a sum.
  if (bytes < 0 || bytes > limit_ - live_) {
    throw SessionError(SessionErrorKind::ResourceExhausted,
                       std::string(what) + " needs " + std::to_string(bytes) + " bytes, and the run holds " +
                           std::to_string(live_) + " of the session's memory limit of " + std::to_string(limit_) +
                           " bytes");
  }
  live_ += bytes;
}

void RunControl::charge(DType type, const Shape& shape, std::string_view what) {
  // spec/tensors.md section 8: a string counts as its std::string object.
  charge(checked_storage_bytes(shape, type), what);
}

bool RunControl::stop_requested() const noexcept {
  if (cancel_ != nullptr && cancel_->cancelled()) return true;
  // No deadline (the default time_point::max()) costs no clock read.
  return deadline_ != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= deadline_;
}

void RunControl::check_stop() const {
  if (!stop_requested()) return;
  const bool cancelled = cancel_ != nullptr && cancel_->cancelled();
  throw SessionError(SessionErrorKind::Cancelled,
                     cancelled ? "the run was cancelled" : "the run passed its deadline");
}

}  // namespace onemodel
