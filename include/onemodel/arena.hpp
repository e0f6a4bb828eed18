// Bump allocation for the state of one run. spec/tensors.md section 6, Arena: 64-byte aligned,
// chunks (1 MiB by default, or the request if larger) from a pool; reset() reclaims everything
// and makes every tensor allocated since stale. Not thread-safe: one arena per concurrent run.
// After a warm-up, a run with the same allocation sequence allocates no memory.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "onemodel/buffer.hpp"
#include "onemodel/tensor.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

class Arena {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  explicit Arena(BufferPool& pool = BufferPool::shared(), std::size_t chunk_bytes = kDefaultChunkBytes);
  // Returns the chunks to the pool.
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // A contiguous tensor in the arena. Contents are unspecified (0xFF in Checked builds). The byte
  // size is checked before anything is allocated.
  Tensor allocate(DType type, const Shape& shape);

  // Reclaims every allocation; tensors allocated since the last reset become stale. In Checked
  // builds, verifies the canary after every allocation and throws TensorError(Overrun) (after
  // completing the reset) when one was overwritten.
  void reset();

  std::size_t chunk_count() const noexcept { return chunks_.size(); }

 private:
  struct Allocation {
    std::size_t chunk;
    std::size_t offset;
    std::size_t length;
  };

  BufferPool* pool_;
  std::size_t chunk_bytes_;
  std::vector<std::shared_ptr<Buffer>> chunks_;
  std::size_t current_ = 0;   // chunk being filled
  std::size_t position_ = 0;  // first free byte in it
  std::size_t high_water_ = 0;  // chunks touched since the last reset
  std::vector<Allocation> allocations_;  // Checked builds: where the canaries are
};

}  // namespace onemodel

#pragma GCC visibility pop
