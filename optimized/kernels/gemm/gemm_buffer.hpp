// A float buffer aligned to a cache line that only grows, for the per-thread packing space of
// the matrix product: after the first calls of a given size a call allocates nothing
// (graph-runtime.md section 4, steady state without heap allocation).
#pragma once

#include <cstddef>

namespace onemodel::opt::gemm {

class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  ~GrowingBuffer();
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;

  // At least `count` floats, aligned to kPackAlignment; earlier contents are not kept when it grows.
  float* reserve(std::size_t count);

 private:
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// 64-byte aligned storage of `count` floats (at least one), freed with free_aligned_floats.
float* allocate_aligned_floats(std::size_t count);
void free_aligned_floats(float* p) noexcept;

}  // namespace onemodel::opt::gemm
