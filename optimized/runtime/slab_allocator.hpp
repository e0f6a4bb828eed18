// Offsets inside a run state's slab (graph-runtime.md section 5): best fit among free blocks,
// else growth at the end (extending a free block that touches the end), and coalescing of
// neighbouring free blocks. Plan-time only: runs never allocate. Each call is O(log n) in the free
// blocks (a second index by size finds the best fit), so a plan stays near-linear in the graph
// (spec/optimized-engine.md "Load time").
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace onemodel::opt {

class SlabAllocator {
 public:
  static constexpr std::int64_t kAlignment = 64;

  // Rounds up to the alignment; a zero-byte request still takes one aligned unit so every value
  // has its own address.
  static std::int64_t rounded(std::int64_t bytes) noexcept;

  // The offset of a new block of `bytes` (rounded), 64-byte aligned.
  std::int64_t allocate(std::int64_t bytes);
  // Returns a block taken by allocate (same size).
  void release(std::int64_t offset, std::int64_t bytes);
  // The slab size needed so far.
  std::int64_t size() const noexcept { return end_; }
  // Free blocks, for tests: offset -> length.
  const std::map<std::int64_t, std::int64_t>& free_blocks() const noexcept { return free_; }

 private:
  void insert_free(std::int64_t offset, std::int64_t length);
  void erase_free(std::map<std::int64_t, std::int64_t>::iterator it);

  std::map<std::int64_t, std::int64_t> free_;
  std::set<std::pair<std::int64_t, std::int64_t>> by_size_;  // (length, offset) of each free block
  std::int64_t end_ = 0;
};

}  // namespace onemodel::opt
