#include "optimized/runtime/slab_allocator.hpp"

#include <iterator>
#include <stdexcept>

namespace onemodel::opt {

std::int64_t SlabAllocator::rounded(std::int64_t bytes) noexcept {
  if (bytes <= 0) return kAlignment;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

std::int64_t SlabAllocator::allocate(std::int64_t bytes) {
  const std::int64_t size = rounded(bytes);
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second >= size && (best == free_.end() || it->second < best->second)) best = it;
  }
  if (best != free_.end()) {
    const std::int64_t offset = best->first;
    const std::int64_t left = best->second - size;
    free_.erase(best);
    if (left > 0) free_.emplace(offset + size, left);
    return offset;
  }
  // No block fits: a free block at the end grows instead of leaving a hole below new memory.
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == end_) {
      const std::int64_t offset = last->first;
      free_.erase(last);
      end_ = offset + size;
      return offset;
    }
  }
  const std::int64_t offset = end_;
  end_ += size;
  return offset;
}

void SlabAllocator::release(std::int64_t offset, std::int64_t bytes) {
  const std::int64_t size = rounded(bytes);
  auto [it, inserted] = free_.emplace(offset, size);
  if (!inserted) throw std::logic_error("slab block released twice");
  auto next = std::next(it);
  if (next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
  }
}

}  // namespace onemodel::opt
