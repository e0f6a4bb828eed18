// Views that move no data: spec/tensors.md section 4.
#include <string>

#include "core/tensor/checked_fill.hpp"
#include "core/tensor/checked_math.hpp"
#include "core/tensor/tensor_offsets.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

namespace detail {

bool view_in_bounds(const Shape& shape, const std::array<std::int64_t, kMaxRank>& strides, std::int64_t offset,
                    std::int64_t limit) noexcept {
  if (shape.empty()) return true;
  std::int64_t lowest = offset;
  std::int64_t highest = offset;
  for (int d = 0; d < shape.rank(); ++d) {
    const auto reach = checked_mul(static_cast<std::int64_t>(shape[d]) - 1, strides[static_cast<std::size_t>(d)]);
    if (!reach) return false;
    auto& bound = *reach < 0 ? lowest : highest;
    const auto sum = checked_add(bound, *reach);
    if (!sum) return false;
    bound = *sum;
  }
  return lowest >= 0 && highest < limit;
}

}  // namespace detail

namespace {

using WideStrides = std::array<std::int64_t, kMaxRank>;

[[noreturn]] void view_error(const std::string& message) { throw TensorError(TensorErrorKind::View, message); }

void check_axis(int axis, int rank, const char* op) {
  if (axis < 0 || axis >= rank) {
    view_error(std::string(op) + ": axis " + std::to_string(axis) + " outside rank " + std::to_string(rank));
  }
}

WideStrides widen(const Strides& s, int rank) {
  WideStrides out{};
  for (int d = 0; d < rank; ++d) out[static_cast<std::size_t>(d)] = s[static_cast<std::size_t>(d)];
  return out;
}

Shape shape_of(const std::array<std::int64_t, kMaxRank>& extents, int rank) {
  return Shape(std::span<const std::int64_t>(extents.data(), static_cast<std::size_t>(rank)));
}

}  // namespace

Tensor Tensor::make_view(const Shape& shape, const WideStrides& strides, std::int64_t offset) const {
  // spec/tensors.md section 3: the validity check runs when the view is made.
  if (!detail::view_in_bounds(shape, strides, offset, limit_)) {
    view_error("view " + shape.to_string() + " at offset " + std::to_string(offset) +
               " reaches outside an allocation of " + std::to_string(limit_) + " elements");
  }
  // spec/tensors.md section 4 (narrowing): in a valid non-empty view every stride of an extent >= 2
  // fits 32 bits; a stride that does not fit can only belong to an extent-1 dimension or an empty
  // view, where it is never used, and is stored as 0.
  Strides narrow{};
  for (int d = 0; d < shape.rank(); ++d) {
    const std::int64_t s = strides[static_cast<std::size_t>(d)];
    const bool fits = s >= INT32_MIN && s <= INT32_MAX;
    if (!fits && shape[d] > 1 && !shape.empty()) view_error("stride does not fit 32 bits");
    narrow[static_cast<std::size_t>(d)] = fits ? static_cast<std::int32_t>(s) : 0;
  }
  Tensor view(buffer_, base_, limit_, generation_, owns_, dtype_, shape, narrow, offset);
  // DESIGN.md section 3, item 10: Checked builds re-check every invariant of every view made.
  if constexpr (detail::kChecked) view.validate();
  return view;
}

Tensor Tensor::permute(std::span<const int> order) const {
  const int rank = shape_.rank();
  if (order.size() != static_cast<std::size_t>(rank)) view_error("permute: order length differs from the rank");
  std::array<bool, kMaxRank> seen{};
  std::array<std::int64_t, kMaxRank> extents{};
  WideStrides strides{};
  for (int i = 0; i < rank; ++i) {
    const int p = order[static_cast<std::size_t>(i)];
    check_axis(p, rank, "permute");
    if (seen[static_cast<std::size_t>(p)]) view_error("permute: axis " + std::to_string(p) + " repeated");
    seen[static_cast<std::size_t>(p)] = true;
    // Dimension i of the result is dimension p[i] of the source.
    extents[static_cast<std::size_t>(i)] = shape_[p];
    strides[static_cast<std::size_t>(i)] = strides_[static_cast<std::size_t>(p)];
  }
  return make_view(shape_of(extents, rank), strides, offset_);
}

Tensor Tensor::transpose(int a, int b) const {
  const int rank = shape_.rank();
  check_axis(a, rank, "transpose");
  check_axis(b, rank, "transpose");
  std::array<int, kMaxRank> order{};
  for (int i = 0; i < rank; ++i) order[static_cast<std::size_t>(i)] = i;
  std::swap(order[static_cast<std::size_t>(a)], order[static_cast<std::size_t>(b)]);
  return permute(std::span<const int>(order.data(), static_cast<std::size_t>(rank)));
}

Tensor Tensor::t() const {
  if (shape_.rank() < 2) view_error("t: rank below 2");
  return transpose(shape_.rank() - 2, shape_.rank() - 1);
}

Tensor Tensor::slice(int axis, std::int64_t start, std::int64_t end, std::int64_t step) const {
  const int rank = shape_.rank();
  check_axis(axis, rank, "slice");
  const std::int64_t size = shape_[axis];
  // spec/tensors.md section 4: 0 <= start <= end <= size, step >= 1.
  if (start < 0 || start > end || end > size || step < 1) {
    view_error("slice: start " + std::to_string(start) + ", end " + std::to_string(end) + ", step " +
               std::to_string(step) + " on an axis of " + std::to_string(size));
  }
  std::array<std::int64_t, kMaxRank> extents{};
  for (int d = 0; d < rank; ++d) extents[static_cast<std::size_t>(d)] = shape_[d];
  // ceil((end - start) / step); end - start <= 2^31-1, so no overflow.
  extents[static_cast<std::size_t>(axis)] = (end - start + step - 1) / step;
  const Shape shape = shape_of(extents, rank);
  WideStrides strides = widen(strides_, rank);
  const std::int64_t stride = strides[static_cast<std::size_t>(axis)];
  std::int64_t offset = offset_;
  // The offset moves only when the result is non-empty.
  if (!shape.empty()) offset += start * stride;  // |start|, |stride| < 2^31: no overflow
  const auto scaled = detail::checked_mul(stride, step);
  // A product past 64 bits leaves the axis with at most one element: its stride is never used.
  strides[static_cast<std::size_t>(axis)] = scaled ? *scaled : 0;
  return make_view(shape, strides, offset);
}

Tensor Tensor::select(int axis, std::int64_t index) const {
  const int rank = shape_.rank();
  check_axis(axis, rank, "select");
  if (index < 0 || index >= shape_[axis]) {
    view_error("select: index " + std::to_string(index) + " on an axis of " + std::to_string(shape_[axis]));
  }
  std::array<std::int64_t, kMaxRank> extents{};
  WideStrides strides{};
  int out = 0;
  for (int d = 0; d < rank; ++d) {
    if (d == axis) continue;
    extents[static_cast<std::size_t>(out)] = shape_[d];
    strides[static_cast<std::size_t>(out)] = strides_[static_cast<std::size_t>(d)];
    ++out;
  }
  const std::int64_t offset = offset_ + index * strides_[static_cast<std::size_t>(axis)];
  return make_view(shape_of(extents, rank - 1), strides, offset);
}

Tensor Tensor::flip(int axis) const {
  const int rank = shape_.rank();
  check_axis(axis, rank, "flip");
  WideStrides strides = widen(strides_, rank);
  const std::int64_t stride = strides[static_cast<std::size_t>(axis)];
  std::int64_t offset = offset_;
  if (shape_[axis] > 0) offset += (static_cast<std::int64_t>(shape_[axis]) - 1) * stride;
  strides[static_cast<std::size_t>(axis)] = -stride;
  return make_view(shape_, strides, offset);
}

Tensor Tensor::unsqueeze(int axis) const {
  const int rank = shape_.rank();
  if (rank >= kMaxRank) view_error("unsqueeze: rank would exceed 8");
  if (axis < 0 || axis > rank) view_error("unsqueeze: axis " + std::to_string(axis) + " outside [0, rank]");
  std::array<std::int64_t, kMaxRank> extents{};
  WideStrides strides{};
  int out = 0;
  auto insert = [&](std::int64_t stride) {
    extents[static_cast<std::size_t>(out)] = 1;
    strides[static_cast<std::size_t>(out)] = stride;
    ++out;
  };
  for (int d = 0; d < rank; ++d) {
    // Stride = extent * stride of the dimension it precedes (both < 2^31: no overflow).
    if (d == axis) insert(static_cast<std::int64_t>(shape_[d]) * strides_[static_cast<std::size_t>(d)]);
    extents[static_cast<std::size_t>(out)] = shape_[d];
    strides[static_cast<std::size_t>(out)] = strides_[static_cast<std::size_t>(d)];
    ++out;
  }
  if (axis == rank) insert(1);  // or 1 at the end
  return make_view(shape_of(extents, rank + 1), strides, offset_);
}

Tensor Tensor::squeeze(int axis) const {
  const int rank = shape_.rank();
  check_axis(axis, rank, "squeeze");
  if (shape_[axis] != 1) view_error("squeeze: axis " + std::to_string(axis) + " has extent " +
                                    std::to_string(shape_[axis]));
  std::array<std::int64_t, kMaxRank> extents{};
  WideStrides strides{};
  int out = 0;
  for (int d = 0; d < rank; ++d) {
    if (d == axis) continue;
    extents[static_cast<std::size_t>(out)] = shape_[d];
    strides[static_cast<std::size_t>(out)] = strides_[static_cast<std::size_t>(d)];
    ++out;
  }
  return make_view(shape_of(extents, out), strides, offset_);
}

Tensor Tensor::squeeze() const {
  std::array<std::int64_t, kMaxRank> extents{};
  WideStrides strides{};
  int out = 0;
  for (int d = 0; d < shape_.rank(); ++d) {
    if (shape_[d] == 1) continue;
    extents[static_cast<std::size_t>(out)] = shape_[d];
    strides[static_cast<std::size_t>(out)] = strides_[static_cast<std::size_t>(d)];
    ++out;
  }
  return make_view(shape_of(extents, out), strides, offset_);
}

Tensor Tensor::expand(const Shape& target) const {
  const int rank = shape_.rank();
  const int target_rank = target.rank();
  if (target_rank < rank) view_error("expand: target " + target.to_string() + " has lower rank than " +
                                     shape_.to_string());
  WideStrides strides{};
  for (int i = 0; i < target_rank; ++i) {
    // Right-aligned: source dimension i - (target_rank - rank).
    const int d = i - (target_rank - rank);
    if (d < 0) continue;  // a missing leading dimension: stride 0
    const std::int32_t e = shape_[d];
    if (e == target[i]) {
      strides[static_cast<std::size_t>(i)] = strides_[static_cast<std::size_t>(d)];
    } else if (e == 1) {
      strides[static_cast<std::size_t>(i)] = 0;  // broadcast
    } else {
      view_error("expand: cannot expand " + shape_.to_string() + " to " + target.to_string());
    }
  }
  return make_view(target, strides, offset_);
}

}  // namespace onemodel
