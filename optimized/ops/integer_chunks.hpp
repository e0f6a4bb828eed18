// The fixed-chunk loop of the integer convolution and requantization overrides (kernels-gemm.md,
// "Fixed chunks and thread independence"; int8.md "Convolution"): chunk(i) for every i of a count
// fixed by the shape, over the session's pool. A chunk may allocate (the packed windows of its
// column block), but the pool's chunks must not throw: the first exception is kept and rethrown
// on the calling thread once every chunk has run or been skipped.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>

#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt {

template <class Chunk>
void run_integer_chunks(ThreadPool* pool, std::size_t chunks, double estimate_ns, Chunk&& chunk) {
  if (chunks == 0) return;
  if (pool == nullptr || chunks == 1) {
    for (std::size_t i = 0; i < chunks; ++i) chunk(i);
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<bool> failed{false};
  pool->parallel_for(chunks, estimate_ns, [&](std::size_t i) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      chunk(i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace onemodel::opt
