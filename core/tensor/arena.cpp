#include "onemodel/arena.hpp"

#include <algorithm>
#include <cstring>

#include "core/tensor/checked_fill.hpp"

namespace onemodel {

Arena::Arena(BufferPool& pool, std::size_t chunk_bytes)
    : pool_(&pool), chunk_bytes_(std::max<std::size_t>(chunk_bytes, kBufferAlignment)) {}

Arena::~Arena() {
  for (auto& chunk : chunks_) {
    try {
      chunk->release();
    } catch (const TensorError&) {
      // A destructor cannot throw; the memory has been returned either way.
    }
  }
}

Tensor Arena::allocate(DType type, const Shape& shape) {
  // spec/tensors.md section 8: strings are objects, never placed in reused raw memory; they get a
  // buffer of their own, freed with the last tensor over it.
  if (type == DType::String) return Tensor::empty(type, shape);
  // spec/tensors.md section 3: checked before anything is allocated.
  const auto length = static_cast<std::size_t>(checked_byte_size(shape, type));
  // Checked builds keep 64 canary bytes after every allocation (spec/tensors.md section 6).
  const std::size_t need = length + (detail::kChecked ? kCanaryBytes : 0);
  for (;;) {
    if (current_ == chunks_.size()) {
      chunks_.push_back(pool_->rent(std::max(chunk_bytes_, need)));
      position_ = 0;
    }
    Buffer& chunk = *chunks_[current_];
    // spec/tensors.md section 6: 64-byte aligned bump allocation.
    const std::size_t at = (position_ + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    if (at <= chunk.length() && need <= chunk.length() - at) {
      detail::mark_new(chunk.data() + at, length);
      if constexpr (detail::kChecked) allocations_.push_back(Allocation{current_, at, length});
      position_ = at + need;
      high_water_ = std::max(high_water_, current_ + 1);
      return Tensor::over(chunks_[current_], at, length, type, shape);
    }
    if (position_ == 0) {
      // An unused chunk too small for this request: a larger one goes in its place in the
      // sequence, so replaying the same allocations finds the same chunks.
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(current_),
                     pool_->rent(std::max(chunk_bytes_, need)));
      continue;
    }
    ++current_;
    position_ = 0;
  }
}

void Arena::reset() {
  bool canaries = true;
  for (const Allocation& a : allocations_) {
    canaries = canaries && detail::canary_ok(chunks_[a.chunk]->data() + a.offset, a.length);
  }
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    Buffer& chunk = *chunks_[i];
    canaries = canaries && chunk.canary_intact();
    if (i < high_water_) detail::mark_returned(chunk.data(), chunk.length());
    // spec/tensors.md section 6: every tensor allocated since is now stale.
    chunk.advance_generation();
  }
  allocations_.clear();  // keeps its capacity: no allocation on the next run
  current_ = 0;
  position_ = 0;
  high_water_ = 0;
  if (!canaries) {
    throw TensorError(TensorErrorKind::Overrun, "an arena allocation was written past its end");
  }
}

}  // namespace onemodel
