// Two-thread runs in the kernel tests that really run on two threads. A pool built with
// ThreadPool::Sharing::Always shares every call of two or more chunks, however small its estimate
// (by the estimate alone, softmax or layer-norm cases below 5 us of work would run entirely on
// the caller), and the pool's counting hook (ThreadPool::shared_calls_everywhere) says whether a
// call was shared. A test declares a RequireSharedCalls at its top: at its end the test fails
// unless at least one call since then had chunks run by two threads. A build without threads
// (ONEMODEL_NO_THREADS, WebAssembly) has no second thread: there the guard marks the test skipped,
// so its two-thread half never counts as passing (its one-thread checks still run and can fail).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt::two_threads {

#if defined(ONEMODEL_NO_THREADS)
inline constexpr bool kAvailable = false;
#else
inline constexpr bool kAvailable = true;
#endif

// The pool the kernel tests use for their two-thread runs.
constexpr ThreadPool::Sharing kAlways = ThreadPool::Sharing::Always;

inline void require_shared(std::uint64_t shared_calls, const std::string& what) {
  if (!kAvailable) {
    GTEST_SKIP() << what << ": this build has no second thread, the two-thread runs ran on one";
  }
  EXPECT_GT(shared_calls, 0u) << what << ": no call was shared by two threads, so the two-thread comparison compared "
                                         "one thread with itself";
}

class RequireSharedCalls {
 public:
  explicit RequireSharedCalls(std::string what)
      : what_(std::move(what)), before_(ThreadPool::shared_calls_everywhere()) {}
  ~RequireSharedCalls() { require_shared(ThreadPool::shared_calls_everywhere() - before_, what_); }
  RequireSharedCalls(const RequireSharedCalls&) = delete;
  RequireSharedCalls& operator=(const RequireSharedCalls&) = delete;

 private:
  std::string what_;
  std::uint64_t before_;
};

// The same for whole-graph runs: while one of these lives, every session made gets a pool that
// shares every call of two or more chunks (ThreadPool::set_session_sharing); require() then fails
// the test unless some call since its construction was run by two threads. Graph and pass tests
// make one around their two-thread runs, so "2 threads" there means two threads ran.
class SessionsAlwaysShare {
 public:
  SessionsAlwaysShare() : before_(ThreadPool::shared_calls_everywhere()) {
    ThreadPool::set_session_sharing(ThreadPool::Sharing::Always);
  }
  ~SessionsAlwaysShare() { ThreadPool::set_session_sharing(ThreadPool::Sharing::ByEstimate); }
  SessionsAlwaysShare(const SessionsAlwaysShare&) = delete;
  SessionsAlwaysShare& operator=(const SessionsAlwaysShare&) = delete;

  std::uint64_t shared_calls() const { return ThreadPool::shared_calls_everywhere() - before_; }
  void require(const std::string& what) const { require_shared(shared_calls(), what); }

 private:
  std::uint64_t before_;
};

}  // namespace onemodel::opt::two_threads
