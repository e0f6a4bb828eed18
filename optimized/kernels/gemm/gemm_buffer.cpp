#include "optimized/kernels/gemm/gemm_buffer.hpp"

#include <new>

#include "optimized/kernels/gemm/gemm_path.hpp"

namespace onemodel::opt::gemm {

float* allocate_aligned_floats(std::size_t count) {
  const std::size_t n = count == 0 ? 1 : count;
  return static_cast<float*>(::operator new(n * sizeof(float), std::align_val_t{kPackAlignment}));
}

void free_aligned_floats(float* p) noexcept {
  if (p != nullptr) ::operator delete(p, std::align_val_t{kPackAlignment});
}

GrowingBuffer::~GrowingBuffer() { free_aligned_floats(data_); }

float* GrowingBuffer::reserve(std::size_t count) {
  if (count > capacity_) {
    // Grow geometrically so a slowly rising size settles after a few calls.
    std::size_t grown = capacity_ + capacity_ / 2;
    if (grown < count) grown = count;
    float* fresh = allocate_aligned_floats(grown);
    free_aligned_floats(data_);
    data_ = fresh;
    capacity_ = grown;
  }
  return data_;
}

}  // namespace onemodel::opt::gemm
