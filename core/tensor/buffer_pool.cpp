#include <bit>
#include <cstring>
#include <new>

#include "core/tensor/checked_fill.hpp"
#include "core/tensor/pool_state.hpp"
#include "onemodel/buffer.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {

namespace detail {

namespace {
constexpr std::align_val_t kAlign{kBufferAlignment};
}

PoolState::~PoolState() { close(); }

std::byte* PoolState::take(std::size_t capacity) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = free_lists.find(capacity);
    if (it != free_lists.end() && !it->second.empty()) {
      std::byte* block = it->second.back();
      it->second.pop_back();
      idle_bytes -= capacity;
      return block;
    }
    ++allocations;
  }
  // Outside the lock: the system allocator is thread-safe.
  return static_cast<std::byte*>(::operator new(capacity + kCanaryBytes, kAlign));
}

void PoolState::give_back(std::byte* block, std::size_t capacity) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex);
    // spec/tensors.md section 6: beyond MaxIdleBytes a released block is freed.
    if (!closed && capacity <= max_idle_bytes && idle_bytes <= max_idle_bytes - capacity) {
      try {
        free_lists[capacity].push_back(block);
        idle_bytes += capacity;
        return;
      } catch (...) {
        // No memory for the list entry: fall through and free the block.
      }
    }
  }
  ::operator delete(block, kAlign);
}

void* PoolState::take_record(std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (bytes == record_bytes && !idle_records.empty()) {
      void* record = idle_records.back();
      idle_records.pop_back();
      return record;
    }
  }
  return ::operator new(bytes);
}

void PoolState::give_back_record(void* record, std::size_t bytes) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!closed && (record_bytes == 0 || record_bytes == bytes) && idle_records.size() < kMaxIdleRecords) {
      try {
        // The list's room is made once, so returning a record never allocates afterwards.
        if (idle_records.capacity() == 0) idle_records.reserve(kMaxIdleRecords);
        record_bytes = bytes;
        idle_records.push_back(record);
        return;
      } catch (...) {
        // No memory for the list: fall through and free the record.
      }
    }
  }
  ::operator delete(record);
}

void PoolState::close() noexcept {
  std::lock_guard<std::mutex> lock(mutex);
  closed = true;
  for (void* record : idle_records) ::operator delete(record);
  idle_records.clear();
  for (auto& [capacity, blocks] : free_lists) {
    for (std::byte* block : blocks) ::operator delete(block, kAlign);
  }
  free_lists.clear();
  idle_bytes = 0;
}

}  // namespace detail

bool checked_build() noexcept { return detail::kChecked; }

BufferPool::BufferPool(std::size_t max_idle_bytes)
    : state_(std::make_shared<detail::PoolState>(max_idle_bytes)) {}

BufferPool::~BufferPool() { state_->close(); }

BufferPool& BufferPool::shared() {
  static BufferPool pool;
  return pool;
}

// spec/tensors.md section 6, size classes.
std::size_t BufferPool::class_size(std::size_t n) {
  if (n > kMaxRequestBytes) {
    throw TensorError(TensorErrorKind::Pool,
                      "request of " + std::to_string(n) + " bytes exceeds 2^31-1");
  }
  if (n <= 256) {
    const std::size_t rounded = (n + 63) / 64 * 64;
    return rounded < 64 ? 64 : rounded;
  }
  // b = 2^floor(log2(n-1)): the largest power of two below n.
  const std::size_t b = std::bit_floor(n - 1);
  const std::size_t step = b / 4;
  return b + (n - b + step - 1) / step * step;
}

std::shared_ptr<Buffer> BufferPool::rent(std::size_t n, bool zero) {
  const std::size_t capacity = class_size(n);
  std::byte* block = state_->take(capacity);
  detail::mark_new(block, n);
  if (zero && n != 0) std::memset(block, 0, n);
  try {
    return std::allocate_shared<Buffer>(detail::RecordAllocator<Buffer>(state_), Buffer::PrivateTag{}, state_, block, n,
                                        capacity);
  } catch (...) {
    state_->give_back(block, capacity);
    throw;
  }
}

std::size_t BufferPool::max_idle_bytes() const noexcept { return state_->max_idle_bytes; }

std::size_t BufferPool::idle_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->idle_bytes;
}

std::size_t BufferPool::idle_blocks(std::size_t class_size) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto it = state_->free_lists.find(class_size);
  return it == state_->free_lists.end() ? 0 : it->second.size();
}

std::uint64_t BufferPool::system_allocations() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->allocations;
}

}  // namespace onemodel
