#include "optimized/runtime/slab_allocator.hpp"

#include <iterator>
#include <limits>
#include <stdexcept>

namespace onemodel::opt {

std::int64_t SlabAllocator::rounded(std::int64_t bytes) noexcept {
  if (bytes <= 0) return kAlignment;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

void SlabAllocator::insert_free(std::int64_t offset, std::int64_t length) {
  free_.emplace(offset, length);
  by_size_.emplace(length, offset);
}

void SlabAllocator::erase_free(std::map<std::int64_t, std::int64_t>::iterator it) {
  by_size_.erase({it->second, it->first});
  free_.erase(it);
}

std::int64_t SlabAllocator::allocate(std::int64_t bytes) {
  const std::int64_t size = rounded(bytes);
  // Best fit: the smallest free block that is large enough, the lowest offset among equals.
  const auto best = by_size_.lower_bound({size, std::numeric_limits<std::int64_t>::min()});
  if (best != by_size_.end()) {
    const std::int64_t offset = best->second;
    const std::int64_t left = best->first - size;
    erase_free(free_.find(offset));
    if (left > 0) insert_free(offset + size, left);
    return offset;
  }
  // No block fits: a free block at the end grows instead of leaving a hole below new memory.
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == end_) {
      const std::int64_t offset = last->first;
      erase_free(last);
      end_ = offset + size;
      return offset;
    }
  }
  const std::int64_t offset = end_;
  end_ += size;
  return offset;
}

void SlabAllocator::release(std::int64_t offset, std::int64_t bytes) {
  std::int64_t start = offset;
  std::int64_t length = rounded(bytes);
  if (free_.count(offset) != 0) throw std::logic_error("slab block released twice");
  // Coalesce with the free neighbours on both sides.
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && start + length == next->first) {
    length += next->second;
    erase_free(next);
  }
  auto after = free_.lower_bound(offset);
  if (after != free_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      erase_free(prev);
    }
  }
  insert_free(start, length);
}

}  // namespace onemodel::opt
