// The shared state behind a BufferPool: per-class free lists under one mutex. Buffers keep it
// alive, so a buffer can be released after its pool object is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace onemodel::detail {

struct PoolState {
  explicit PoolState(std::size_t max_idle) : max_idle_bytes(max_idle) {}
  ~PoolState();

  // A block of capacity + kCanaryBytes bytes, 64-byte aligned: from the free list of `capacity`
  // or from the system.
  std::byte* take(std::size_t capacity);
  // spec/tensors.md section 6: waits in its free list unless the idle cap would be exceeded or
  // the pool is closed, then it is freed.
  void give_back(std::byte* block, std::size_t capacity) noexcept;
  // The pool object is gone: free the idle blocks; later returns are freed directly.
  void close() noexcept;

  mutable std::mutex mutex;
  std::map<std::size_t, std::vector<std::byte*>> free_lists;
  std::size_t idle_bytes = 0;
  const std::size_t max_idle_bytes;
  std::uint64_t allocations = 0;
  bool closed = false;
};

}  // namespace onemodel::detail
