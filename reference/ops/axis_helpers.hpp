// Shared helpers of the shape and indexing operators (spec/ops/shape-indexing.md section 1):
// negative-axis normalisation, reading integer operand tensors (axes, shapes, pads, indices) into
// 64-bit values, and building checked shapes from them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/element_reader.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::shape_ops {

// An axis in [-rank, rank) counted from the end when negative (spec/ops/shape-indexing.md
// section 1, Errors: outside the range is InvalidModel naming the node).
inline int normalize_axis(const NodeInfo& node, std::int64_t axis, int rank) {
  if (axis < -static_cast<std::int64_t>(rank) || axis >= rank) {
    node.fail_invalid("axis " + std::to_string(axis) + " outside [" + std::to_string(-rank) + ", " +
                      std::to_string(rank) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// The values of an int32 or int64 tensor (any rank) as 64-bit integers; other types are
// InvalidModel (these operands are int64 in every opset the page covers).
inline std::vector<std::int64_t> read_ints(const NodeInfo& node, const Tensor& t, const char* what) {
  std::vector<std::int64_t> out;
  if (t.dtype() == DType::I64) {
    out = t.to_vector<std::int64_t>();
  } else if (t.dtype() == DType::I32) {
    for (std::int32_t v : t.to_vector<std::int32_t>()) out.push_back(v);
  } else {
    node.fail_invalid(std::string(what) + " must be int32 or int64, not " + std::string(dtype_name(t.dtype())));
  }
  return out;
}

// The values of a small integer operand (starts, ends, axes, steps, pads, indices) as 64-bit
// integers, held inline up to kInline values and on the heap only beyond: read on every run when
// the optimized engine runs these kernels, and a warm run allocates nothing (graph-runtime.md
// section 4).
class IntValues {
 public:
  static constexpr std::size_t kInline = 2 * kMaxRank;  // pads: a begin and an end per axis

  IntValues() = default;
  IntValues(const IntValues&) = delete;
  IntValues& operator=(const IntValues&) = delete;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const std::int64_t* data() const noexcept { return heap_.empty() ? inline_.data() : heap_.data(); }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  const std::int64_t* begin() const noexcept { return data(); }
  const std::int64_t* end() const noexcept { return data() + size_; }
  std::span<const std::int64_t> span() const noexcept { return {data(), size_}; }

  // Reads the values of an int32 or int64 tensor (any rank and strides); other types are
  // InvalidModel like read_ints.
  void read(const NodeInfo& node, const Tensor& t, const char* what) {
    if (t.dtype() != DType::I64 && t.dtype() != DType::I32) {
      node.fail_invalid(std::string(what) + " must be int32 or int64, not " + std::string(dtype_name(t.dtype())));
    }
    const std::size_t n = static_cast<std::size_t>(t.element_count());
    std::int64_t* out = inline_.data();
    heap_.clear();
    if (n > kInline) {
      heap_.resize(n);
      out = heap_.data();
    }
    size_ = n;
    if (n == 0) return;
    if (t.dtype() == DType::I64) {
      ew::ElementReader<std::int64_t> r(t, t.shape());
      for (std::size_t i = 0; i < n; ++i) out[i] = r.next();
    } else {
      ew::ElementReader<std::int32_t> r(t, t.shape());
      for (std::size_t i = 0; i < n; ++i) out[i] = r.next();
    }
  }

 private:
  std::array<std::int64_t, kInline> inline_{};
  std::vector<std::int64_t> heap_;
  std::size_t size_ = 0;
};

// A Shape from 64-bit extents; a negative extent is InvalidModel, extents past the library's
// limits (spec/tensors.md section 3) are Unsupported.
inline Shape make_shape(const NodeInfo& node, const std::vector<std::int64_t>& extents) {
  for (std::int64_t e : extents) {
    if (e < 0) node.fail_invalid("negative extent " + std::to_string(e));
  }
  try {
    return Shape(std::span<const std::int64_t>(extents.data(), extents.size()));
  } catch (const TensorError& e) {
    node.fail_unsupported(e.message());
  }
}

inline std::vector<std::int64_t> extents_of(const Shape& shape) {
  std::vector<std::int64_t> out;
  for (std::int32_t e : shape.extents()) out.push_back(e);
  return out;
}

// An index outside its extent at run time (spec/ops/shape-indexing.md section 1, Errors).
[[noreturn]] inline void fail_index(const NodeInfo& node, const std::string& message) {
  throw SessionError(SessionErrorKind::InvalidInput, node.ir().op_type + ": " + message, node.name());
}

// The value of an input needed for the output shape, or nullptr after asking for run-time values
// (spec/ops/shape-indexing.md section 1, Plan-time values).
inline const Tensor* value_or_defer(InferContext& context, std::size_t i) {
  const Tensor* value = context.input_value(i);
  if (value == nullptr) context.require_runtime_values();
  return value;
}

}  // namespace onemodel::shape_ops
