#include "optimized/frame/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "optimized/frame/stop_scope.hpp"

namespace onemodel::opt {

namespace {
// Shared calls over every pool of the process (ThreadPool::shared_calls_everywhere).
std::atomic<std::uint64_t> g_shared_calls{0};
// The sharing of the pools sessions make (ThreadPool::set_session_sharing).
std::atomic<bool> g_sessions_always_share{false};
}  // namespace

std::uint64_t ThreadPool::shared_calls_everywhere() noexcept { return g_shared_calls.load(std::memory_order_relaxed); }

void ThreadPool::set_session_sharing(Sharing sharing) noexcept {
  g_sessions_always_share.store(sharing == Sharing::Always, std::memory_order_relaxed);
}

ThreadPool::Sharing ThreadPool::session_sharing() noexcept {
  return g_sessions_always_share.load(std::memory_order_relaxed) ? Sharing::Always : Sharing::ByEstimate;
}

ThreadPool::ThreadPool(int threads, Sharing sharing) : sharing_(sharing) {
#if !defined(ONEMODEL_NO_THREADS)
  const int workers = std::clamp(threads, 1, 256) - 1;
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { worker_loop(); });
#else
  (void)threads;
#endif
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    published_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::size_t ThreadPool::helpers_for(std::size_t chunks, double estimate_ns) const noexcept {
  if (chunks < 2 || workers_.empty()) return 0;
  if (sharing_ == Sharing::Always) return std::min(workers_.size(), chunks - 1);
  if (!(estimate_ns > 0)) return 0;
  const double by_work = estimate_ns / kNanosecondsPerThread;
  std::size_t helpers = by_work >= static_cast<double>(workers_.size()) ? workers_.size()
                                                                         : static_cast<std::size_t>(by_work);
  return std::min(helpers, chunks - 1);
}

namespace {
constexpr std::uint64_t kFrontMask = 0xFFFFFFFFu;
constexpr std::uint64_t kBackUnit = std::uint64_t{1} << 32;

// Whether a job has 2^32 chunks or more, which the two 32-bit ends of claims_ cannot hold (only
// where size_t is wider than 32 bits; written with two shifts so that a 32-bit size_t compares no
// constant out of its range).
bool too_many_chunks(std::size_t chunks) noexcept { return (chunks >> 16 >> 16) != 0; }
}  // namespace

std::size_t ThreadPool::claim_chunks(bool from_back, std::size_t& first) noexcept {
  // A share of what is left per claim (guided scheduling), never less than one chunk.
  const std::uint64_t divisor = 2 * (static_cast<std::uint64_t>(workers_.size()) + 1);
  std::uint64_t range = claims_.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t front = range & kFrontMask, back = range >> 32;
    if (front >= back) return 0;
    const std::uint64_t take = std::max<std::uint64_t>(1, (back - front) / divisor);
    const std::uint64_t next = from_back ? range - take * kBackUnit : range + take;
    if (claims_.compare_exchange_weak(range, next, std::memory_order_relaxed)) {
      first = static_cast<std::size_t>(from_back ? back - take : front);
      return static_cast<std::size_t>(take);
    }
  }
}

std::size_t ThreadPool::run_chunks(bool from_back) {
  FunctionRef<void(std::size_t)>& job = *job_;
  const FunctionRef<bool()>* stop = job_stop_;
  std::size_t ran = 0;
  for (;;) {
    std::size_t first = 0;
    const std::size_t taken = claim_chunks(from_back, first);
    if (taken == 0) return ran;
    // Each end runs its claim from its own end inwards: the caller ascending, a worker descending,
    // as when they claimed one chunk at a time.
    for (std::size_t n = 0; n < taken; ++n) {
      const std::size_t i = from_back ? first + taken - 1 - n : first + n;
      // A skipped chunk still counts as done: the caller waits for every claimed chunk.
      if (stop == nullptr || !(*stop)()) job(i);
    }
    ran += taken;
    done_chunks_.fetch_add(taken, std::memory_order_release);
  }
}

void ThreadPool::parallel_for(std::size_t chunks, double estimate_ns, FunctionRef<void(std::size_t)> chunk) {
  const std::size_t helpers = helpers_for(chunks, estimate_ns);
  // The calling run's stop test (stop_scope.hpp), polled before every chunk on every thread.
  const FunctionRef<bool()>* stop = StopScope::current();
  bool expected = false;
  if (helpers == 0 || too_many_chunks(chunks) || !busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    for (std::size_t i = 0; i < chunks; ++i) {
      if (stop != nullptr && (*stop)()) return;
      chunk(i);
    }
    return;
  }
  job_ = &chunk;
  job_stop_ = stop;
  job_chunks_ = chunks;
  // Sharing::Always: chunk 0 is the caller's, the workers start at 1.
  const bool always = sharing_ == Sharing::Always;
  claims_.store((static_cast<std::uint64_t>(chunks) << 32) | (always ? 1u : 0u), std::memory_order_relaxed);
  done_chunks_.store(0, std::memory_order_relaxed);
  helper_chunks_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    wanted_ = helpers;
    published_.store(generation_, std::memory_order_release);
  }
  wake_.notify_all();
  std::size_t mine = 0;
  if (always) {
    // Wait until a worker has claimed a chunk (one is wanted, so one joins), then run chunk 0.
    while ((claims_.load(std::memory_order_relaxed) >> 32) == chunks) std::this_thread::yield();
    if (stop == nullptr || !(*stop)()) chunk(0);
    done_chunks_.fetch_add(1, std::memory_order_release);
    mine = 1;
  }
  mine += run_chunks(false);
  {
    // Every chunk has been claimed: no worker joins from here on.
    std::lock_guard<std::mutex> lock(mutex_);
    wanted_ = 0;
  }
  // Wait until the claimed chunks finished and no worker still reads the job, so the next job can
  // reuse the fields: spinning first, then asleep.
  if (!spin_until_finished()) {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] {
      return active_.load(std::memory_order_acquire) == 0 &&
             done_chunks_.load(std::memory_order_acquire) == job_chunks_;
    });
  }
  if (mine > 0 && helper_chunks_.load(std::memory_order_relaxed) > 0) {
    shared_calls_.fetch_add(1, std::memory_order_relaxed);
    g_shared_calls.fetch_add(1, std::memory_order_relaxed);
  }
  job_ = nullptr;
  job_stop_ = nullptr;
  busy_.store(false, std::memory_order_release);
}

namespace {

// Polls `done` with a pause between polls until it holds (true) or `limit` has passed (false).
template <class Done>
bool spin_until(Done done, std::chrono::microseconds limit) noexcept {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    if ((i & 63u) == 0 && std::chrono::steady_clock::now() - start > limit) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
}

}  // namespace

bool ThreadPool::spin_for_news(std::uint64_t observed) const noexcept {
  // About the gap between two layers' products; a parked worker costs nothing.
  return spin_until([&] { return published_.load(std::memory_order_acquire) != observed; },
                    std::chrono::microseconds(200));
}

bool ThreadPool::spin_until_finished() const noexcept {
  return spin_until(
      [&] {
        return active_.load(std::memory_order_acquire) == 0 &&
               done_chunks_.load(std::memory_order_acquire) == job_chunks_;
      },
      std::chrono::microseconds(50));
}

void ThreadPool::worker_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    const bool news = spin_for_news(published_.load(std::memory_order_acquire));
    std::unique_lock<std::mutex> lock(mutex_);
    const auto wanted_here = [&] { return stopping_ || (generation_ != seen && wanted_ > 0); };
    if (!wanted_here()) {
      if (news) continue;  // a job this worker is not needed for: spin for the next one
      wake_.wait(lock, wanted_here);
    }
    if (stopping_) return;
    seen = generation_;
    --wanted_;
    active_.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    const std::size_t ran = run_chunks(true);
    if (ran > 0) helper_chunks_.fetch_add(ran, std::memory_order_relaxed);
    // The release below publishes the count to the caller, which reads it after seeing active_ 0.
    active_.fetch_sub(1, std::memory_order_release);
    // Under the lock, so a caller checking finished_'s condition either saw the decrement or is
    // already waiting when the notification comes.
    lock.lock();
    finished_.notify_one();
  }
}

}  // namespace onemodel::opt
