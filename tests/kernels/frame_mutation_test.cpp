// The frame (optimized/frame/): instruction-set detection and the parallel-for, checked against
// facts found without the library. Written for tools/mutate (issue 10, mutation testing): the
// frame mutants that no kernel test saw (a path dropped from detection, a wrong ONEMODEL_ISA cap,
// a pool that stops sharing work, a serial loop that skips a chunk) fail here.
//
// Oracles: the CPU's features as Linux reports them in /proc/cpuinfo (the path list of
// spec/optimized-engine.md: SSE4.1; AVX2 with FMA; AVX-512 F, DQ, BW and VL), the cap levels of
// README.md ("ONEMODEL_ISA=scalar|sse|avx2|avx512 caps the kernel path"), and counts of the chunks
// each parallel-for ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;

#if defined(__x86_64__) && defined(__linux__)
// The words of the first "flags" line of /proc/cpuinfo, or an empty set when it cannot be read.
std::set<std::string> cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    std::istringstream words(line.substr(colon + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(FrameMutation, DetectedPathsAreTheOnesTheCpuReports) {
  const std::set<std::string> f = cpu_flags();
  if (f.empty()) GTEST_SKIP() << "/proc/cpuinfo has no flags line";
  std::vector<Isa> want{Isa::Scalar};
  const bool sse41 = f.count("sse4_1") != 0;
  if (sse41) want.push_back(Isa::Sse);
  if (sse41 && f.count("avx2") && f.count("fma")) want.push_back(Isa::Avx2);
  if (sse41 && f.count("avx2") && f.count("fma") && f.count("avx512f") && f.count("avx512dq") &&
      f.count("avx512bw") && f.count("avx512vl")) {
    want.push_back(Isa::Avx512);
  }
  const auto got = onemodel::opt::available_isas();
  ASSERT_EQ(std::vector<Isa>(got.begin(), got.end()), want);
}
#endif

// The level of each path as README.md lists the caps: scalar < sse < avx2 < avx512.
int level_of(Isa isa) {
  switch (isa) {
    case Isa::Scalar: return 0;
    case Isa::Avx2: return 2;
    case Isa::Avx512: return 3;
    default: return 1;
  }
}

TEST(FrameMutation, TheCapSelectsTheBestPathAtOrBelowIt) {
  const char* old = std::getenv("ONEMODEL_ISA");
  const std::string saved = old != nullptr ? old : "";
  const struct {
    const char* name;
    int level;
  } caps[] = {{"scalar", 0}, {"sse", 1}, {"avx2", 2}, {"avx512", 3}};
  for (const auto& cap : caps) {
    ASSERT_EQ(setenv("ONEMODEL_ISA", cap.name, 1), 0);
    Isa want = Isa::Scalar;
    for (Isa isa : onemodel::opt::available_isas()) {
      if (level_of(isa) <= cap.level && level_of(isa) >= level_of(want)) want = isa;
    }
    EXPECT_EQ(onemodel::opt::select_isa(), want) << "ONEMODEL_ISA=" << cap.name;
  }
  ASSERT_EQ(unsetenv("ONEMODEL_ISA"), 0);
  const auto all = onemodel::opt::available_isas();
  EXPECT_EQ(onemodel::opt::select_isa(), all.back()) << "no cap: the best path";
  if (!saved.empty()) setenv("ONEMODEL_ISA", saved.c_str(), 1);
}

// Every chunk of [0, chunks) runs exactly once, on the pool or on the serial path.
void expect_each_chunk_once(const KernelContext& context, std::size_t chunks, double estimate) {
  std::vector<std::atomic<int>> runs(chunks + 2);
  for (auto& r : runs) r.store(0);
  context.parallel_for(chunks, estimate, [&](std::size_t i) {
    if (i < runs.size()) runs[i].fetch_add(1);
  });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ASSERT_EQ(runs[i].load(), i < chunks ? 1 : 0) << "chunk " << i << " of " << chunks;
  }
}

TEST(FrameMutation, EveryChunkOnceOnEveryPoolAndSerially) {
  expect_each_chunk_once(KernelContext{Isa::Scalar, false, nullptr}, 7, 1e9);
  expect_each_chunk_once(KernelContext{Isa::Scalar, false, nullptr}, 1, 0.0);
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    const KernelContext context{Isa::Scalar, false, &pool};
    for (std::size_t chunks : {1u, 2u, 3u, 17u, 256u}) {
      expect_each_chunk_once(context, chunks, 1e9);  // large estimate: shared with the workers
      expect_each_chunk_once(context, chunks, 1.0);  // tiny estimate: the caller alone
    }
  }
}

// A job large by its estimate, whose chunks take long enough that a woken worker joins, is run by
// at least two threads (otherwise "two threads" tests would test one).
TEST(FrameMutation, ALargeJobIsSharedByTwoThreads) {
#if defined(ONEMODEL_NO_THREADS)
  GTEST_SKIP() << "a build without threads (WebAssembly) has no second thread";
#endif
  ThreadPool pool(2);
  std::mutex lock;
  std::set<std::thread::id> ran_on;
  pool.parallel_for(64, 1e9, [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> guard(lock);
    ran_on.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ran_on.size(), 2u);
}

// Many short jobs back to back: each runs its own chunks once and none of an earlier job's
// (a pool that returns while a worker is still inside the previous job fails this).
TEST(FrameMutation, BackToBackJobsKeepTheirChunks) {
  for (int threads : {2, 4}) {
    ThreadPool pool(threads);
    for (int job = 0; job < 3000; ++job) {
      const std::size_t chunks = 2 + static_cast<std::size_t>(job % 5);
      std::vector<std::atomic<int>> runs(chunks);
      for (auto& r : runs) r.store(0);
      std::atomic<int> foreign{0};
      const int id = job;
      pool.parallel_for(chunks, 1e9, [&runs, &foreign, id, chunks](std::size_t i) {
        if (id < 0 || i >= chunks) foreign.fetch_add(1);
        else runs[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < chunks; ++i) ASSERT_EQ(runs[i].load(), 1) << "job " << job << " chunk " << i;
      ASSERT_EQ(foreign.load(), 0);
    }
  }
}

// parallel_for returns only after every worker has left the job (thread_pool.hpp: the next job
// reuses its fields). The caller's chunk is quick and the worker's takes a few microseconds, so
// the caller is already waiting when the worker's last chunk completes; a pool that returned as
// soon as the chunks were done, before the worker had signed off, would read the worker's chunk
// count too early and miss shared calls. Every call of a Sharing::Always pool of two threads is
// shared by construction (the caller waits for a worker to claim a chunk), so the hook must count
// each one: an exact count, not a timing.
TEST(FrameMutation, ReturnsOnlyAfterTheWorkerSignedOff) {
#if defined(ONEMODEL_NO_THREADS)
  GTEST_SKIP() << "a build without threads (WebAssembly) has no worker to wait for";
#endif
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  constexpr int kCalls = 4000;
  for (int call = 0; call < kCalls; ++call) {
    std::atomic<int> ran{0};
    pool.parallel_for(2, 1e9, [&ran](std::size_t i) {
      if (i == 1) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(3);
        while (std::chrono::steady_clock::now() < until) {
        }
      }
      ran.fetch_add(1);
    });
    ASSERT_EQ(ran.load(), 2) << "call " << call;
    ASSERT_EQ(pool.shared_calls(), static_cast<std::uint64_t>(call) + 1) << "call " << call;
  }
}

}  // namespace
