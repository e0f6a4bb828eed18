// The kernel shared by ArgMax and ArgMin (spec/ops/norms.md section 7): scan the axis from index
// 0; a later element wins when strictly better, or, with select_last_index, better or equal. NaN
// never wins unless it is first. Output int64; keepdims default 1; an axis of extent 0 gives zeros.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel::norms {

template <bool IsMax>
class ArgExtremeKernel final : public OpKernel {
 public:
  ArgExtremeKernel(std::int64_t axis, bool keepdims, bool select_last)
      : axis_(axis), keepdims_(keepdims), select_last_(select_last) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
                             DType::U16, DType::U32, DType::U64});
    const Shape& x = context.input_shape(0);
    if (x.rank() == 0) context.node().fail_invalid("input must have rank 1 or more");
    const int axis = normalize_axis(context.node(), axis_, x.rank());
    std::vector<std::int64_t> out;
    for (int d = 0; d < x.rank(); ++d) {
      if (d != axis) out.push_back(x[d]);
      else if (keepdims_) out.push_back(1);
    }
    context.set_output(0, DType::I64, Shape(std::span<const std::int64_t>(out.data(), out.size())));
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    switch (x.dtype()) {
      case DType::F32: run_typed<float>(context, x); break;
      case DType::F64: run_typed<double>(context, x); break;
      case DType::I8: run_typed<std::int8_t>(context, x); break;
      case DType::I16: run_typed<std::int16_t>(context, x); break;
      case DType::I32: run_typed<std::int32_t>(context, x); break;
      case DType::I64: run_typed<std::int64_t>(context, x); break;
      case DType::U8: run_typed<std::uint8_t>(context, x); break;
      case DType::U16: run_typed<std::uint16_t>(context, x); break;
      case DType::U32: run_typed<std::uint32_t>(context, x); break;
      case DType::U64: run_typed<std::uint64_t>(context, x); break;
      default: break;  // refused by infer
    }
  }

 private:
  template <class T>
  void run_typed(RunContext& context, const Tensor& x) const {
    const Shape& shape = x.shape();
    const int axis = normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t outer = extent_product(shape, 0, axis);
    const std::int64_t n = shape[axis];
    const std::int64_t inner = extent_product(shape, axis + 1, shape.rank());
    const T* in = x.data<T>().data();
    std::int64_t* out = context.output(0).mutable_data<std::int64_t>().data();
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const T* row = in + o * n * inner + i;
        std::int64_t best = 0;
        for (std::int64_t k = 1; k < n; ++k) {
          if (wins(row[k * inner], row[best * inner])) best = k;
        }
        out[o * inner + i] = best;
      }
    }
  }

  template <class T>
  bool wins(T candidate, T best) const noexcept {
    if constexpr (IsMax) return select_last_ ? candidate >= best : candidate > best;
    else return select_last_ ? candidate <= best : candidate < best;
  }

  std::int64_t axis_;
  bool keepdims_;
  bool select_last_;
};

// select_last_index exists from opset 12; earlier opsets always take the first.
template <bool IsMax>
std::unique_ptr<OpKernel> make_arg_extreme(const NodeInfo& node) {
  const bool select_last = node.opset() >= 12 && node.get_int("select_last_index", 0) != 0;
  return std::make_unique<ArgExtremeKernel<IsMax>>(node.get_int("axis", 0), node.get_int("keepdims", 1) != 0,
                                                   select_last);
}

}  // namespace onemodel::norms
