// The fixed-chunk parallel-for (optimized/frame/thread_pool.hpp): every chunk of every job runs
// exactly once, whatever the thread count, the estimate (how many workers join), the chunk
// durations, and callers sharing the pool; a worker never runs a chunk of a job that has ended
// (the caller spins for the last chunks, then sleeps: both ways are driven here by chunks that
// end at once and chunks that outlast the spin); how many helpers an estimate wakes; the tests'
// Sharing::Always mode and the counting hook of shared calls.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <random>
#include <thread>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/stop_scope.hpp"
#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt {
namespace {

// Runs `jobs` jobs back to back; each chunk adds 1 to its own counter, and a chunk seen by a job
// other than its own (a stale worker) or twice shows up as a count other than 1.
void run_jobs(ThreadPool& pool, std::size_t jobs, std::uint32_t seed, bool slow_chunks) {
  std::mt19937 rng(seed);
  std::vector<std::atomic<int>> counts(64);
  for (std::size_t job = 0; job < jobs; ++job) {
    const std::size_t chunks = std::uniform_int_distribution<std::size_t>(1, counts.size())(rng);
    for (std::size_t i = 0; i < chunks; ++i) counts[i].store(0, std::memory_order_relaxed);
    // Estimates from "too small to share" to "every worker".
    const double estimate = std::uniform_real_distribution<double>(0.0, 4.0)(rng) * ThreadPool::kNanosecondsPerThread;
    const bool slow = slow_chunks && job % 50 == 0;
    pool.parallel_for(chunks, estimate, [&](std::size_t i) {
      if (slow && i + 1 == chunks) std::this_thread::sleep_for(std::chrono::microseconds(300));
      counts[i].fetch_add(1, std::memory_order_relaxed);
    });
    for (std::size_t i = 0; i < chunks; ++i) {
      ASSERT_EQ(counts[i].load(), 1) << "job " << job << " chunk " << i << " of " << chunks;
    }
  }
}

TEST(ThreadPool, EveryChunkOnceAtEveryThreadCount) {
  for (const auto sharing : {ThreadPool::Sharing::ByEstimate, ThreadPool::Sharing::Always}) {
    for (int threads : {1, 2, 4}) {
      ThreadPool pool(threads, sharing);
      run_jobs(pool, 3000, 17u + static_cast<std::uint32_t>(threads), false);
    }
  }
}

TEST(ThreadPool, EveryChunkOnceWhenTheLastChunkOutlastsTheSpin) {
  ThreadPool pool(2);
  run_jobs(pool, 500, 5, true);
}

#if !defined(ONEMODEL_NO_THREADS)
// A second caller needs a second thread, which the WebAssembly build (ONEMODEL_NO_THREADS) has not.
TEST(ThreadPool, CallersSharingThePoolEachRunAllTheirChunks) {
  ThreadPool pool(2);
  std::thread other([&] { run_jobs(pool, 1500, 91, false); });
  run_jobs(pool, 1500, 92, false);
  other.join();
}
#endif  // !ONEMODEL_NO_THREADS

// Sharing::Always (the tests' pool): every call of two or more chunks runs chunk 0 on the caller
// and at least one other chunk on a worker, whatever the estimate, and the counting hook counts
// exactly those calls; one-chunk calls stay on the caller and are not counted. Every chunk still
// runs once.
TEST(ThreadPool, AlwaysSharesEveryCallOfTwoOrMoreChunksAndCountsIt) {
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  const std::uint64_t everywhere_before = ThreadPool::shared_calls_everywhere();
  const std::thread::id caller = std::this_thread::get_id();
  std::uint64_t multi_chunk_calls = 0;
  for (std::size_t chunks : {1, 2, 3, 7, 64, 1, 2}) {
    std::vector<std::thread::id> ran_on(chunks);
    std::vector<std::atomic<int>> counts(chunks);
    pool.parallel_for(chunks, 0.0, [&](std::size_t i) {
      ran_on[i] = std::this_thread::get_id();
      counts[i].fetch_add(1, std::memory_order_relaxed);
    });
    for (std::size_t i = 0; i < chunks; ++i) ASSERT_EQ(counts[i].load(), 1) << chunks << " chunks, chunk " << i;
    EXPECT_EQ(ran_on[0], caller) << chunks << " chunks";
    std::size_t on_workers = 0;
    for (const auto& id : ran_on) on_workers += id != caller ? 1 : 0;
    if (chunks < 2) {
      EXPECT_EQ(on_workers, 0u);
      continue;
    }
    ++multi_chunk_calls;
#if defined(ONEMODEL_NO_THREADS)
    EXPECT_EQ(on_workers, 0u) << "a build without threads has no worker";
#else
    EXPECT_GE(on_workers, 1u) << chunks << " chunks all ran on the caller";
#endif
  }
#if defined(ONEMODEL_NO_THREADS)
  EXPECT_EQ(pool.shared_calls(), 0u);
  EXPECT_EQ(ThreadPool::shared_calls_everywhere(), everywhere_before);
#else
  EXPECT_EQ(pool.shared_calls(), multi_chunk_calls);
  EXPECT_GE(ThreadPool::shared_calls_everywhere() - everywhere_before, multi_chunk_calls);
#endif
}

#if !defined(ONEMODEL_NO_THREADS)
// With two threads the caller claims chunks from the front and the worker from the back, so the
// caller's chunks are a prefix of the indices and the worker's the rest: each thread keeps the
// same end of a job's index range from call to call (thread_pool.hpp, claims_). Chunks of random
// lengths, so the meeting point moves; every chunk still runs once.
TEST(ThreadPool, TwoThreadsRunTheTwoEndsOfTheRange) {
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  const std::thread::id caller = std::this_thread::get_id();
  std::mt19937 rng(41);
  std::size_t worker_calls = 0;
  for (int call = 0; call < 200; ++call) {
    const std::size_t chunks = std::uniform_int_distribution<std::size_t>(2, 40)(rng);
    std::vector<int> delay_us(chunks);
    for (int& d : delay_us) d = std::uniform_int_distribution<int>(0, 20)(rng);
    std::vector<std::thread::id> ran_on(chunks);
    std::vector<std::atomic<int>> counts(chunks);
    pool.parallel_for(chunks, 0.0, [&](std::size_t i) {
      ran_on[i] = std::this_thread::get_id();
      counts[i].fetch_add(1, std::memory_order_relaxed);
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(delay_us[i]);
      while (std::chrono::steady_clock::now() < until) {
      }
    });
    std::size_t first_on_worker = chunks;
    for (std::size_t i = 0; i < chunks; ++i) {
      ASSERT_EQ(counts[i].load(), 1) << chunks << " chunks, chunk " << i;
      if (ran_on[i] != caller && first_on_worker == chunks) first_on_worker = i;
    }
    for (std::size_t i = first_on_worker; i < chunks; ++i) {
      ASSERT_NE(ran_on[i], caller) << "call " << call << ": chunk " << i << " of " << chunks
                                   << " ran on the caller after chunk " << first_on_worker << " ran on the worker";
    }
    worker_calls += first_on_worker < chunks ? 1 : 0;
  }
  EXPECT_EQ(worker_calls, 200u);
}
#endif  // !ONEMODEL_NO_THREADS

// By estimate, a call below one helper's worth of work runs on the caller alone and the hook does
// not count it: the case the tests' "two threads" runs used to be in without knowing it.
TEST(ThreadPool, ACallBelowTheEstimateIsNotCountedAsShared) {
  ThreadPool pool(2);
  std::vector<std::thread::id> ran_on(16);
  pool.parallel_for(16, 0.5 * ThreadPool::kNanosecondsPerThread,
                    [&](std::size_t i) { ran_on[i] = std::this_thread::get_id(); });
  for (const auto& id : ran_on) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_EQ(pool.shared_calls(), 0u);
}

TEST(ThreadPool, HelpersFollowTheEstimate) {
  ThreadPool pool(3);
  const double unit = ThreadPool::kNanosecondsPerThread;
#if defined(ONEMODEL_NO_THREADS)
  // Builds without threads start no worker: every call runs on the caller.
  EXPECT_EQ(pool.threads(), 1);
  EXPECT_EQ(pool.helpers_for(100, 10.0 * unit), 0u);
  return;
#endif
  EXPECT_EQ(pool.helpers_for(100, 0.5 * unit), 0u);
  EXPECT_EQ(pool.helpers_for(100, 1.5 * unit), 1u);
  EXPECT_EQ(pool.helpers_for(100, 10.0 * unit), 2u);  // at most the workers
  EXPECT_EQ(pool.helpers_for(2, 10.0 * unit), 1u);    // at most chunks - 1
  EXPECT_EQ(pool.helpers_for(1, 10.0 * unit), 0u);
  ThreadPool alone(1);
  EXPECT_EQ(alone.helpers_for(100, 10.0 * unit), 0u);
}

// spec/session.md section 8: with a stop test installed on the calling thread, the chunks not yet
// started when it says stop are skipped, on the caller and on the workers; the pool stays usable.
TEST(ThreadPool, ChunksAfterTheStopTestSaysStopAreSkipped) {
  for (int threads : {1, 2, 4}) {
    for (auto sharing : {ThreadPool::Sharing::ByEstimate, ThreadPool::Sharing::Always}) {
      ThreadPool pool(threads, sharing);
      std::atomic<bool> stopped{false};
      const auto stop = [&] { return stopped.load(std::memory_order_acquire); };
      const FunctionRef<bool()> stop_ref(stop);
      std::atomic<std::size_t> ran{0};
      {
        const StopScope scope(stop_ref);
        pool.parallel_for(2000, 1e9, [&](std::size_t i) {
          ran.fetch_add(1, std::memory_order_relaxed);
          if (i == 3) stopped.store(true, std::memory_order_release);
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        });
      }
      // Only the chunks already started on some thread when chunk 3 set the flag ran: a handful,
      // bounded loosely here so that a thread descheduled on a loaded machine cannot fail it.
      EXPECT_LT(ran.load(), 1000u) << threads << " threads";
      if (threads == 1) {
        EXPECT_EQ(ran.load(), 4u);
      }
      // Outside the scope nothing is skipped.
      std::atomic<std::size_t> all{0};
      pool.parallel_for(100, 1e9, [&](std::size_t) { all.fetch_add(1, std::memory_order_relaxed); });
      EXPECT_EQ(all.load(), 100u);
    }
  }
  // The pool-less path of KernelContext skips the same way.
  KernelContext alone;
  std::atomic<bool> stopped{false};
  const auto stop = [&] { return stopped.load(std::memory_order_acquire); };
  const FunctionRef<bool()> stop_ref(stop);
  const StopScope scope(stop_ref);
  std::size_t ran = 0;
  alone.parallel_for(100, 1e9, [&](std::size_t i) {
    ++ran;
    if (i == 3) stopped.store(true);
  });
  EXPECT_EQ(ran, 4u);
}

}  // namespace
}  // namespace onemodel::opt
