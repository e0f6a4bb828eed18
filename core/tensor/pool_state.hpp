// The shared state behind a BufferPool: per-class free lists under one mutex. Buffers keep it
// alive, so a buffer can be released after its pool object is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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

  // The memory of the std::shared_ptr records (control block and Buffer, one size) that rent()
  // makes: kept for reuse like the blocks, so renting from a warm pool allocates nothing
  // (graph-runtime.md section 4: a warm run allocates nothing, and the half-precision adapter
  // rents its conversion buffers per node). At most kMaxIdleRecords wait.
  static constexpr std::size_t kMaxIdleRecords = 4096;
  void* take_record(std::size_t bytes);
  void give_back_record(void* record, std::size_t bytes) noexcept;

  mutable std::mutex mutex;
  std::map<std::size_t, std::vector<std::byte*>> free_lists;
  std::vector<void*> idle_records;
  std::size_t record_bytes = 0;  // the size of every record in idle_records
  std::size_t idle_bytes = 0;
  const std::size_t max_idle_bytes;
  std::uint64_t allocations = 0;
  bool closed = false;
};

// The allocator std::allocate_shared uses for a rented Buffer's record: memory from and back to
// the pool's idle records. Holding the state keeps it alive until the record is given back.
template <class T>
struct RecordAllocator {
  using value_type = T;
  explicit RecordAllocator(std::shared_ptr<PoolState> s) noexcept : state(std::move(s)) {}
  template <class U>
  RecordAllocator(const RecordAllocator<U>& other) noexcept : state(other.state) {}
  T* allocate(std::size_t n) { return static_cast<T*>(state->take_record(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { state->give_back_record(p, n * sizeof(T)); }
  template <class U>
  friend bool operator==(const RecordAllocator& a, const RecordAllocator<U>& b) noexcept {
    return a.state == b.state;
  }

  std::shared_ptr<PoolState> state;
};

}  // namespace onemodel::detail
