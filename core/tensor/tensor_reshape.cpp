// Reshape as a view when the strides allow it, else through a contiguous copy.
// spec/tensors.md section 4, "Reshape viewability".
#include <string>

#include "onemodel/tensor.hpp"

namespace onemodel {

namespace {

using WideStrides = std::array<std::int64_t, kMaxRank>;

// A maximal group of source dimensions that steps through memory with one stride.
struct Run {
  std::int64_t length;        // product of its extents
  std::int64_t inner_stride;  // stride of its innermost dimension
};

}  // namespace

std::optional<Tensor> Tensor::try_reshape(const Shape& target) const {
  if (target.element_count() != shape_.element_count()) {
    throw TensorError(TensorErrorKind::Shape, "reshape of " + shape_.to_string() + " to " + target.to_string() +
                                                  ": element counts differ");
  }
  const int new_rank = target.rank();
  // Empty tensors are always viewable with contiguous strides.
  if (shape_.empty()) {
    const Strides s = contiguous_strides(target);
    WideStrides wide{};
    for (int d = 0; d < new_rank; ++d) wide[static_cast<std::size_t>(d)] = s[static_cast<std::size_t>(d)];
    return make_view(target, wide, offset_);
  }
  // Drop extent-1 source dimensions, then merge neighbours while
  // stride[i] == stride[i+1] * extent[i+1].
  std::array<Run, kMaxRank> runs{};
  int run_count = 0;
  std::int64_t previous_stride = 0;
  for (int d = 0; d < shape_.rank(); ++d) {
    const std::int64_t e = shape_[d];
    if (e == 1) continue;
    const std::int64_t s = strides_[static_cast<std::size_t>(d)];
    if (run_count > 0 && previous_stride == s * e) {
      Run& run = runs[static_cast<std::size_t>(run_count - 1)];
      run.length *= e;  // a product of extents of a non-empty shape: <= 2^31-1
      run.inner_stride = s;
    } else {
      runs[static_cast<std::size_t>(run_count++)] = Run{e, s};
    }
    previous_stride = s;
  }
  // Partition the new dimensions left to right into groups whose products equal the run lengths;
  // a group ends as soon as its product reaches its run's length, and only extent-1 dimensions may
  // follow the last group. Inside a group strides are contiguous from the run's inner stride.
  WideStrides strides{};
  int d = 0;
  for (int r = 0; r < run_count; ++r) {
    const Run& run = runs[static_cast<std::size_t>(r)];
    const int first = d;
    std::int64_t product = 1;
    while (d < new_rank && product < run.length) {
      product *= target[d];  // stays <= run.length * 2^31: no overflow in 64 bits
      ++d;
    }
    if (product != run.length) return std::nullopt;
    std::int64_t stride = run.inner_stride;
    for (int k = d - 1; k >= first; --k) {
      strides[static_cast<std::size_t>(k)] = stride;
      stride *= target[k];  // |stride| <= |inner stride| * run length: fits 64 bits
    }
  }
  for (; d < new_rank; ++d) {
    if (target[d] != 1) return std::nullopt;
    strides[static_cast<std::size_t>(d)] = 1;  // trailing extent-1 dimensions, as at the end of a row-major shape
  }
  return make_view(target, strides, offset_);
}

Tensor Tensor::reshape(std::span<const std::int64_t> extents, BufferPool& pool) const {
  if (extents.size() > static_cast<std::size_t>(kMaxRank)) {
    throw TensorError(TensorErrorKind::Shape, "reshape: rank " + std::to_string(extents.size()) + " exceeds 8");
  }
  // Reshape(-1, ...) infers one extent from the element count.
  std::array<std::int64_t, kMaxRank> resolved{};
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    const std::int64_t e = extents[i];
    resolved[i] = e;
    if (e == -1) {
      if (inferred >= 0) throw TensorError(TensorErrorKind::Shape, "reshape: more than one -1");
      inferred = static_cast<int>(i);
      continue;
    }
    if (e < 0 || e > kMaxElements) {
      throw TensorError(TensorErrorKind::Shape, "reshape: extent " + std::to_string(e) + " is invalid");
    }
    known = known > kMaxElements ? known : known * e;  // saturate once past the limit (no wrap)
  }
  if (inferred >= 0) {
    const std::int64_t count = shape_.element_count();
    if (known == 0 || known > kMaxElements || count % known != 0) {
      throw TensorError(TensorErrorKind::Shape, "reshape: cannot infer -1 for " + std::to_string(count) +
                                                    " elements with the other extents' product " +
                                                    std::to_string(known));
    }
    resolved[static_cast<std::size_t>(inferred)] = count / known;
  }
  const Shape target(std::span<const std::int64_t>(resolved.data(), extents.size()));
  if (auto view = try_reshape(target)) return *view;
  // Not viewable: the contiguous copy always is, and row-major order is the same either way.
  auto view = contiguous(pool).try_reshape(target);
  if (!view) throw TensorError(TensorErrorKind::View, "reshape of a contiguous copy failed");
  return *view;
}

}  // namespace onemodel
