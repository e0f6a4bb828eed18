// Random small float32 graphs for the engine fuzzer and property tests (DESIGN.md section 1):
// a chain of element-wise, matrix, normalisation, reduction, layout and convolution operators
// over small shapes (odd sizes, so vector tails are exercised), with values that include NaN,
// infinities, signed zeros and subnormals. Everything is decided by the bytes it reads, so a
// fuzzer input or a seed reproduces the same graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::diff {

// Reads decisions from bytes; past the end every read gives 0.
class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
  // An integer in [lo, hi].
  int in_range(int lo, int hi) noexcept;
  // A float32: mostly small multiples of 1/16, sometimes a special value or raw bits.
  float value() noexcept;

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

struct RandomGraph {
  IrModel model;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::string description;  // the operators in order, for messages
};

RandomGraph random_graph(ByteSource& source);

}  // namespace onemodel::diff
