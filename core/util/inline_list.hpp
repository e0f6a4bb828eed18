// A list of a few values kept in place, more on the heap: the bookkeeping of a warm run (a node's
// inputs and outputs, zero points, per-chunk partial results) then allocates nothing
// (graph-runtime.md section 4).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace onemodel {

// n values, value-initialized; in place up to N. T must be default-constructible.
template <typename T, std::size_t N>
class InlineList {
 public:
  explicit InlineList(std::size_t n) : size_(n) {
    if (n > N) heap_.resize(n);
  }
  T* data() noexcept { return size_ > N ? heap_.data() : inline_.data(); }
  const T* data() const noexcept { return size_ > N ? heap_.data() : inline_.data(); }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  std::size_t size() const noexcept { return size_; }
  std::span<T> span() noexcept { return {data(), size_}; }
  std::span<const T> span() const noexcept { return {data(), size_}; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  std::size_t size_;
};

}  // namespace onemodel
