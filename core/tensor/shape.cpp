#include "onemodel/shape.hpp"

#include <algorithm>
#include <atomic>

#include "core/tensor/checked_math.hpp"
#include "core/tensor/test_byte_limit.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {

namespace {

[[noreturn]] void shape_error(const std::string& message) {
  throw TensorError(TensorErrorKind::Shape, message);
}

std::string list_to_string(const std::int64_t* extents, std::size_t rank) {
  std::string out = "[";
  for (std::size_t i = 0; i < rank; ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(extents[i]);
  }
  return out + "]";
}

}  // namespace

Shape::Shape(std::initializer_list<std::int64_t> extents) { assign(extents.begin(), extents.size()); }

Shape::Shape(std::span<const std::int64_t> extents) { assign(extents.data(), extents.size()); }

Shape::Shape(std::span<const std::int32_t> extents) {
  if (extents.size() > static_cast<std::size_t>(kMaxRank)) {
    shape_error("rank " + std::to_string(extents.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  std::array<std::int64_t, kMaxRank> wide{};
  std::copy(extents.begin(), extents.end(), wide.begin());
  assign(wide.data(), extents.size());
}

// spec/tensors.md section 3: every check happens in 64-bit arithmetic before the shape exists.
void Shape::assign(const std::int64_t* extents, std::size_t rank) {
  if (rank > static_cast<std::size_t>(kMaxRank)) {
    shape_error("rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
  }
  std::int64_t product = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t e = extents[i];
    if (e < 0 || e > kMaxElements) {
      shape_error("extent " + std::to_string(e) + " of " + list_to_string(extents, rank) +
                  " is not a non-negative 32-bit integer");
    }
    // Both factors are at most 2^31-1, so the 64-bit product cannot wrap.
    product *= e;
    // spec/tensors.md section 3: each prefix product must fit, not only the final count.
    if (product > kMaxElements) {
      shape_error("shape " + list_to_string(extents, rank) + " has more than 2^31-1 elements (prefix of " +
                  std::to_string(i + 1) + " extents)");
    }
  }
  for (std::size_t i = 0; i < rank; ++i) extents_[i] = static_cast<std::int32_t>(extents[i]);
  for (std::size_t i = rank; i < static_cast<std::size_t>(kMaxRank); ++i) extents_[i] = 0;
  rank_ = static_cast<int>(rank);
  count_ = product;
}

std::int32_t Shape::extent(int axis) const {
  if (axis < 0 || axis >= rank_) {
    throw TensorError(TensorErrorKind::View,
                      "axis " + std::to_string(axis) + " outside shape " + to_string());
  }
  return extents_[static_cast<std::size_t>(axis)];
}

std::string Shape::to_string() const {
  std::array<std::int64_t, kMaxRank> wide{};
  for (int i = 0; i < rank_; ++i) wide[static_cast<std::size_t>(i)] = extents_[static_cast<std::size_t>(i)];
  return list_to_string(wide.data(), static_cast<std::size_t>(rank_));
}

Shape Shape::broadcast(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::array<std::int64_t, kMaxRank> out{};
  for (int i = 0; i < rank; ++i) {
    // Right-aligned: position i counts from the left of the result.
    const int ia = i - (rank - a.rank());
    const int ib = i - (rank - b.rank());
    const std::int64_t ea = ia >= 0 ? a[ia] : 1;
    const std::int64_t eb = ib >= 0 ? b[ib] : 1;
    std::int64_t e = 0;
    if (ea == eb || eb == 1) {
      e = ea;
    } else if (ea == 1) {
      e = eb;
    } else {
      shape_error("cannot broadcast " + a.to_string() + " with " + b.to_string());
    }
    out[static_cast<std::size_t>(i)] = e;
  }
  return Shape(std::span<const std::int64_t>(out.data(), static_cast<std::size_t>(rank)));
}

Strides contiguous_strides(const Shape& shape) noexcept {
  Strides strides{};
  std::int64_t product = 1;
  bool overflow = false;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = overflow ? 0 : static_cast<std::int32_t>(product);
    if (!overflow) {
      product *= shape[d];  // both factors < 2^31: no wrap
      if (product > kMaxElements) overflow = true;
    }
  }
  return strides;
}

namespace {
// 0: the real limit. Set only by tests through core/tensor/test_byte_limit.hpp.
std::atomic<std::int64_t> test_byte_limit{0};
}  // namespace

void testing::set_buffer_byte_limit(std::int64_t bytes) noexcept {
  test_byte_limit.store(bytes > 0 && bytes < kMaxBufferBytes ? bytes : 0, std::memory_order_relaxed);
}

namespace {
std::int64_t checked_size_of(const Shape& shape, DType type, std::size_t element) {
  const auto bytes = detail::checked_mul(shape.element_count(), static_cast<std::int64_t>(element));
  // spec/tensors.md section 3: a buffer holds at most 2^31-1 bytes.
  if (!bytes || *bytes > kMaxBufferBytes) {
    shape_error("shape " + shape.to_string() + " of " + std::string(dtype_name(type)) +
                " needs more than 2^31-1 bytes");
  }
  const std::int64_t lowered = test_byte_limit.load(std::memory_order_relaxed);
  if (lowered != 0 && *bytes > lowered) {
    shape_error("shape " + shape.to_string() + " of " + std::string(dtype_name(type)) + " needs more than the " +
                std::to_string(lowered) + " bytes a test allows");
  }
  return *bytes;
}
}  // namespace

std::int64_t checked_byte_size(const Shape& shape, DType type) {
  return checked_size_of(shape, type, dtype_size(type));
}

std::int64_t checked_storage_bytes(const Shape& shape, DType type) {
  return checked_size_of(shape, type, type == DType::String ? sizeof(std::string) : dtype_size(type));
}

}  // namespace onemodel
