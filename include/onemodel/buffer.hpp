// Buffers and the buffer pool. spec/tensors.md section 6: every buffer starts on a 64-byte
// boundary, carries a generation that increases when it is returned (so stale tensors are caught),
// and comes from a pool of size classes with per-class free lists and an idle-memory cap.
// Checked builds (ONEMODEL_CHECKED) fill new and returned memory with 0xFF and keep 64 canary
// bytes 0xA5 after each buffer's length, verified when it is released.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

inline constexpr std::size_t kBufferAlignment = 64;
inline constexpr std::size_t kCanaryBytes = 64;
inline constexpr std::byte kFillByte{0xFF};
inline constexpr std::byte kCanaryByte{0xA5};

// True in builds compiled with ONEMODEL_CHECKED (fill and canaries active).
bool checked_build() noexcept;

namespace detail {
struct PoolState;
}

// A 64-byte-aligned block of `length()` bytes. Shared by every tensor over it (std::shared_ptr);
// the memory goes back to the pool on release() or, if never released, when the last reference
// goes (the counterpart of the source's finalizer).
class Buffer {
 public:
  struct PrivateTag {
    explicit PrivateTag() = default;
  };
  Buffer(PrivateTag, std::shared_ptr<detail::PoolState> pool, std::byte* block, std::size_t length,
         std::size_t capacity) noexcept;
  ~Buffer();
  Buffer(const Buffer&) = delete;

  // A buffer over `length` bytes at `block` that the caller owns (issue 16: the Python package
  // runs on NumPy arrays without copying them). Nothing is returned to a pool: `keep_alive` is
  // held until the last reference goes, so the memory outlives every tensor over it. `block` must
  // be 64-byte aligned like every buffer (spec/tensors.md section 6; Tensor::validate checks it):
  // a caller with a less aligned array borrows from the 64-byte boundary below it and makes its
  // tensor at the byte offset between (Tensor::over). Bytes below the offset are never read. No
  // canary follows the memory; release() throws TensorError(Pool): the owner frees it.
  static std::shared_ptr<Buffer> borrow(std::byte* block, std::size_t length, std::shared_ptr<void> keep_alive);
  // True for a buffer made by borrow().
  bool borrowed() const noexcept { return pool_ == nullptr && string_count_ == 0; }

  // A buffer holding `count` empty std::string objects, constructed in place (spec/tensors.md
  // section 8): the elements of a STRING tensor. Never from a pool and never reused as raw memory:
  // the strings are destroyed and the memory freed on release() or when the last reference goes.
  // Throws TensorError(Shape) when count * sizeof(std::string) exceeds 2^31-1 bytes.
  static std::shared_ptr<Buffer> for_strings(std::size_t count);
  // True for a buffer made by for_strings().
  bool holds_strings() const noexcept { return string_count_ != 0; }
  Buffer& operator=(const Buffer&) = delete;

  // Null once released.
  std::byte* data() const noexcept { return released_.load(std::memory_order_acquire) ? nullptr : block_; }
  std::size_t length() const noexcept { return length_; }
  // The size class the block was taken from (spec/tensors.md section 6).
  std::size_t capacity() const noexcept { return capacity_; }
  bool released() const noexcept { return released_.load(std::memory_order_acquire); }

  // spec/tensors.md section 6: increases when the buffer is returned or its arena reset.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  // spec/tensors.md section 7 hook: 0 at rent, +1 for each tracked write.
  std::uint64_t version() const noexcept { return version_.load(std::memory_order_acquire); }
  void bump_version() noexcept { version_.fetch_add(1, std::memory_order_acq_rel); }

  // Returns the memory to the pool and increases the generation. Throws TensorError(Pool) when
  // already released; in Checked builds throws TensorError(Overrun) (after returning the memory)
  // when the canary bytes after `length()` were overwritten.
  void release();

  // Checked builds: true while the 64 bytes after `length()` still hold 0xA5 (always true
  // otherwise). Used by the arena and by tests.
  bool canary_intact() const noexcept;

 private:
  friend class Arena;
  // The arena reuses the memory of its chunks after Reset; stale tensors must see a new generation.
  void advance_generation() noexcept { generation_.fetch_add(1, std::memory_order_acq_rel); }

  // Destroys the strings of a for_strings() buffer and frees its memory.
  void free_strings() noexcept;

  std::shared_ptr<detail::PoolState> pool_;  // null for a borrowed or string buffer
  std::size_t string_count_ = 0;             // for_strings(): objects constructed (at least 1)
  std::shared_ptr<void> keep_alive_;         // a borrowed buffer's owner; null otherwise
  std::byte* block_;
  std::size_t length_;
  std::size_t capacity_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> version_{0};
  std::atomic<bool> released_{false};
};

// spec/tensors.md section 6. Safe to use from many threads; nothing depends on thread count or
// timing. Destroying the pool frees its idle blocks; buffers still out keep working and free their
// memory when released.
class BufferPool {
 public:
  static constexpr std::size_t kDefaultMaxIdleBytes = std::size_t{2} << 30;  // 2 GiB
  static constexpr std::size_t kMaxRequestBytes = 2147483647;                 // 2^31 - 1

  explicit BufferPool(std::size_t max_idle_bytes = kDefaultMaxIdleBytes);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The process-wide pool used when no pool is named.
  static BufferPool& shared();

  // The size class serving a request of `n` bytes (spec/tensors.md section 6). Throws
  // TensorError(Pool) for n > 2^31-1.
  static std::size_t class_size(std::size_t n);

  // A buffer of `n` bytes from its class's free list, or new memory. Contents are unspecified
  // (0xFF in Checked builds) unless `zero` is set.
  std::shared_ptr<Buffer> rent(std::size_t n, bool zero = false);

  std::size_t max_idle_bytes() const noexcept;
  // Bytes (class sizes) waiting in free lists.
  std::size_t idle_bytes() const;
  // Blocks waiting in the free list of the class `class_size`.
  std::size_t idle_blocks(std::size_t class_size) const;
  // Blocks obtained from the system so far (for tests of reuse).
  std::uint64_t system_allocations() const;

 private:
  std::shared_ptr<detail::PoolState> state_;
};

}  // namespace onemodel

#pragma GCC visibility pop
