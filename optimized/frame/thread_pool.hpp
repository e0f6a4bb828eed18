// The fixed-chunk parallel-for (kernels-gemm.md, "Fixed chunks and thread independence").
// A kernel cuts its work into chunks whose sizes are constants of the kernel and the shape; the
// pool hands chunk indices out through one atomic range, the caller taking them from its front and
// the workers from its back (claims_ below). Threads decide only who runs a chunk, never what it
// computes, so no result depends on the thread count.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "optimized/frame/function_ref.hpp"

namespace onemodel::opt {

class ThreadPool {
 public:
  // At most one thread is woken per this much estimated single-thread work (nanoseconds).
  static constexpr double kNanosecondsPerThread = 5000.0;

  // How a pool decides to share a call. Always is for tests: every call of two or more chunks
  // wakes every worker whatever its estimate, and the caller keeps chunk 0 for itself and starts
  // it only once a helper has claimed a chunk, so the call is shared by at least two threads.
  // Which thread runs a chunk never changes what it computes, so results are the same bits.
  enum class Sharing { ByEstimate, Always };

  // `threads` counts the calling thread: 1 starts no worker. Builds without threads
  // (ONEMODEL_NO_THREADS, the WebAssembly build) always run on the caller.
  explicit ThreadPool(int threads, Sharing sharing = Sharing::ByEstimate);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Runs chunk(i) once for every i in [0, chunks). `estimate_ns` is the whole call's work on one
  // thread; it sets how many workers are woken. If another caller is using the pool, every chunk
  // runs on this thread. chunk must not throw. Allocates nothing. When the calling thread has a
  // stop test installed (StopScope, stop_scope.hpp) and it says stop, the chunks not yet started
  // are skipped (a cancelled run, spec/session.md section 8).
  void parallel_for(std::size_t chunks, double estimate_ns, FunctionRef<void(std::size_t)> chunk);

  // How many workers a call of this estimate would wake (for tests and benchmarks).
  std::size_t helpers_for(std::size_t chunks, double estimate_ns) const noexcept;

  // The counting hook of the tests: calls of parallel_for whose chunks were run by at least two
  // threads (the caller and a worker), for this pool and for every pool of the process. A test
  // that says "two threads" reads one before and after and requires it to have grown. Costs one
  // relaxed atomic add per worker per shared call.
  std::uint64_t shared_calls() const noexcept { return shared_calls_.load(std::memory_order_relaxed); }
  static std::uint64_t shared_calls_everywhere() noexcept;

  // The sharing of the pools the optimized engine makes for new sessions: ByEstimate, unless a
  // test sets Always so that a whole-graph run at two intra-op threads provably splits its work
  // (graph and pass tests, issue 10). Internal: not part of the public API; sessions made before
  // a change keep their pool's setting.
  static void set_session_sharing(Sharing sharing) noexcept;
  static Sharing session_sharing() noexcept;

 private:
  void worker_loop();
  // Spins, without the lock, until something is published or the spin time is over; true when
  // something was published. Layers run back to back, so a worker that finished one job usually
  // finds the next within microseconds: spinning saves the tens of microseconds a parked thread
  // needs to be woken, which would otherwise eat the gain on small layers.
  bool spin_for_news(std::uint64_t observed) const noexcept;
  // Spins, without the lock, until the current job's chunks are done and no worker is inside it,
  // or the spin time is over; true when finished. A helper usually ends its last chunk within
  // microseconds of the caller: sleeping on finished_ would cost a futex wake-up instead.
  bool spin_until_finished() const noexcept;
  // Runs chunks until none is left, claiming them from the front (the caller) or the back (the
  // workers) of the unclaimed range; how many it ran.
  std::size_t run_chunks(bool from_back);
  // Claims the next chunks at one end: how many (0 when none is left), the lowest index in
  // `first`. Each claim takes 1 / (2 x threads) of the unclaimed range, at least one chunk: a
  // claim is a compare-and-swap on the line both ends write, which moves between the cores, and
  // with one chunk per claim a call of 144 chunks of 0.3 us ran no faster on two threads than on
  // one (Intel Xeon, session 41).
  std::size_t claim_chunks(bool from_back, std::size_t& first) noexcept;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::atomic<bool> busy_{false};
  // The current job, valid while busy_.
  FunctionRef<void(std::size_t)>* job_ = nullptr;
  const FunctionRef<bool()>* job_stop_ = nullptr;  // the caller's stop test, or nullptr
  std::size_t job_chunks_ = 0;
  // The unclaimed chunks [front, back): front in the low 32 bits, back in the high 32. The caller
  // takes chunks from the front and the workers from the back, so with two threads each runs one
  // end of the index range, the same end in every call: a layer whose chunks follow the positions
  // of a map (the product's column tiles) then reads on each thread mostly what the same thread
  // wrote in the layer before, where one shared counter dealt the tiles out at random. Reading
  // lines another core has just written costs several times a read from the own core's cache on
  // the machines measured (docs/design.md "Thread pool"). Jobs of 2^32 chunks or more run on the
  // calling thread.
  std::atomic<std::uint64_t> claims_{0};
  std::atomic<std::size_t> done_chunks_{0};
  std::uint64_t generation_ = 0;  // guarded by mutex_
  // generation_ (and a stop) as workers read it without the lock while they spin.
  std::atomic<std::uint64_t> published_{0};
  std::size_t wanted_ = 0;        // workers still to join the current job, guarded by mutex_
  // Workers inside run_chunks: incremented under mutex_ when a worker joins (so a caller that has
  // set wanted_ = 0 under the lock knows nobody joins later), decremented without it.
  std::atomic<std::size_t> active_{0};
  bool stopping_ = false;         // guarded by mutex_
  Sharing sharing_;
  // Chunks of the current job run by workers (added once per worker, before active_ drops).
  std::atomic<std::size_t> helper_chunks_{0};
  std::atomic<std::uint64_t> shared_calls_{0};
};

}  // namespace onemodel::opt
