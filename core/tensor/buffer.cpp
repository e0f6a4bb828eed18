#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "core/tensor/checked_fill.hpp"
#include "core/tensor/pool_state.hpp"
#include "onemodel/buffer.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {

Buffer::Buffer(PrivateTag, std::shared_ptr<detail::PoolState> pool, std::byte* block, std::size_t length,
               std::size_t capacity) noexcept
    : pool_(std::move(pool)), block_(block), length_(length), capacity_(capacity) {}

std::shared_ptr<Buffer> Buffer::borrow(std::byte* block, std::size_t length, std::shared_ptr<void> keep_alive) {
  if (block == nullptr && length != 0) {
    throw TensorError(TensorErrorKind::Pool, std::string("borrowed memory of ").append(std::to_string(length)).append(" bytes at a null address"));
  }
  if (reinterpret_cast<std::uintptr_t>(block) % kBufferAlignment != 0) {
    throw TensorError(TensorErrorKind::Pool, "borrowed memory must start on a 64-byte boundary");
  }
  auto buffer = std::make_shared<Buffer>(PrivateTag{}, nullptr, block, length, length);
  buffer->keep_alive_ = std::move(keep_alive);
  return buffer;
}

Buffer::~Buffer() {
  // Borrowed memory belongs to its owner (keep_alive_ lets it go).
  if (borrowed()) return;
  // Never released: the memory goes back now (the source's finalizer). A destructor cannot
  // throw, so an overwritten canary is only reported.
  if (released_.load(std::memory_order_acquire)) return;
  if (!detail::canary_ok(block_, length_)) {
    std::fprintf(stderr, "onemodel: canary after a buffer of %zu bytes was overwritten\n", length_);
  }
  detail::mark_returned(block_, capacity_ + kCanaryBytes);
  pool_->give_back(block_, capacity_);
}

bool Buffer::canary_intact() const noexcept {
  if (released() || borrowed()) return true;
  return detail::canary_ok(block_, length_);
}

void Buffer::release() {
  if (borrowed()) throw TensorError(TensorErrorKind::Pool, "a borrowed buffer is freed by its owner, not released");
  bool expected = false;
  if (!released_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    throw TensorError(TensorErrorKind::Pool, "buffer released twice");
  }
  // spec/tensors.md section 6: the generation increases when the buffer is returned.
  generation_.fetch_add(1, std::memory_order_acq_rel);
  const bool canary = detail::canary_ok(block_, length_);
  detail::mark_returned(block_, capacity_ + kCanaryBytes);
  pool_->give_back(block_, capacity_);
  // spec/tensors.md section 6, CHECKED builds: a write past the end makes release throw.
  if (!canary) {
    throw TensorError(TensorErrorKind::Overrun,
                      "the 64 canary bytes after a buffer of " + std::to_string(length_) +
                          " bytes were overwritten");
  }
}

}  // namespace onemodel
