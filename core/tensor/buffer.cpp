#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
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

std::shared_ptr<Buffer> Buffer::for_strings(std::size_t count) {
  // spec/tensors.md section 8: at least one object, so that an empty STRING tensor also has an
  // aligned, non-null block and holds_strings() tells the kind apart.
  const std::size_t objects = count == 0 ? 1 : count;
  if (objects > BufferPool::kMaxRequestBytes / sizeof(std::string)) {
    throw TensorError(TensorErrorKind::Shape, std::to_string(count) + " strings need more than 2^31-1 bytes of std::string objects");
  }
  const std::size_t bytes = objects * sizeof(std::string);
  void* raw = ::operator new(bytes, std::align_val_t{kBufferAlignment});
  auto* strings = static_cast<std::string*>(raw);
  // std::string's default constructor does not throw.
  for (std::size_t i = 0; i < objects; ++i) new (strings + i) std::string();
  auto buffer = std::make_shared<Buffer>(PrivateTag{}, nullptr, static_cast<std::byte*>(raw), count * sizeof(std::string), bytes);
  buffer->string_count_ = objects;
  return buffer;
}

void Buffer::free_strings() noexcept {
  auto* strings = reinterpret_cast<std::string*>(block_);
  for (std::size_t i = 0; i < string_count_; ++i) strings[i].~basic_string();
  ::operator delete(static_cast<void*>(block_), std::align_val_t{kBufferAlignment});
}

Buffer::~Buffer() {
  // String objects are destroyed with their memory (spec/tensors.md section 8).
  if (holds_strings()) {
    if (!released_.load(std::memory_order_acquire)) free_strings();
    return;
  }
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
  if (released() || borrowed() || holds_strings()) return true;
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
  if (holds_strings()) {
    free_strings();
    return;
  }
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
