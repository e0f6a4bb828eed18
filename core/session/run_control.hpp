// What one run is held to (spec/session.md sections 7 and 8): one object per run, made by the
// session and used by both engines. It counts the bytes the run has allocated and refuses, before
// allocating, what would pass the session's memory limit; it says when the run must stop because
// its token was cancelled or its deadline passed. Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "onemodel/session.hpp"

namespace onemodel {

class RunControl {
 public:
  RunControl(std::int64_t memory_limit_bytes, const RunOptions& options) noexcept;
  // A subgraph body's run within this one (spec/values.md section 5): the same stop test, and as
  // its limit what this run has left; what the body allocates is released when its run ends.
  struct Nested {};
  RunControl(const RunControl& parent, Nested) noexcept;
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  // Section 7: `bytes` are about to be allocated for `what`. Counts them, or throws
  // SessionError(ResourceExhausted) naming `what`, counting nothing, when the bytes live in this
  // run would pass the limit. Called on the run's thread only.
  // `what` is a view so that a run under its limit builds no string: a warm run allocates nothing
  // (graph-runtime.md section 4).
  void charge(std::int64_t bytes, std::string_view what);
  // The same for a tensor of this type and shape; a size past the tensor limit throws TensorError
  // (spec/tensors.md section 3) as allocating it would.
  void charge(DType type, const Shape& shape, std::string_view what);
  std::int64_t live_bytes() const noexcept { return live_; }
  std::int64_t limit_bytes() const noexcept { return limit_; }

  // Section 8: whether the token is cancelled or the deadline has passed. Thread-safe: the
  // thread pool's workers poll it between chunks.
  bool stop_requested() const noexcept;
  // Throws SessionError(Cancelled) when stop_requested().
  void check_stop() const;

  // RunOptions::profile of a top-level run; nullptr otherwise and in a nested run (a subgraph
  // body's nodes count in the time of the node holding the body).
  RunProfile* profile() const noexcept { return profile_; }
  // RunOptions::random_seed (spec/ops/random.md section 2); a nested run keeps its parent's.
  std::uint64_t random_seed() const noexcept { return random_seed_; }

 private:
  std::int64_t limit_;
  std::int64_t live_ = 0;
  const CancelToken* cancel_;
  std::chrono::steady_clock::time_point deadline_;
  RunProfile* profile_ = nullptr;
  std::uint64_t random_seed_ = 0;
};

}  // namespace onemodel
