// The kernel shared by CumSum (spec/ops/norms.md section 8) and CumProd (spec/ops/losses.md
// section 6, which is section 8's order with multiplication). Both walk each line along the axis
// in the direction of accumulation, one combining step per element: inclusive y[i] = y[i-1] (op)
// x[i] with y[0] = x[0]; exclusive y[0] = start and y[i] = y[i-1] (op) x[i-1]; reverse walks from
// the last element. Only the start value and the combining step differ, supplied by `Step`.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel::cumulative {

// Writes the cumulative walk of contiguous `x` along `axis` to `out` (same shape). `start` is the
// exclusive y[0]; `combine(running, v)` is one step. Sequential, so the bits follow the spec order.
template <class T, class Combine>
void walk(const Tensor& x, int axis, bool exclusive, bool reverse, T start, Combine combine, T* out) {
  const Shape& shape = x.shape();
  const std::int64_t outer = norms::extent_product(shape, 0, axis);
  const std::int64_t n = shape[axis];
  const std::int64_t inner = norms::extent_product(shape, axis + 1, shape.rank());
  const T* in = x.data<T>().data();
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * n * inner + i;
      T running = start;
      for (std::int64_t step = 0; step < n; ++step) {
        const std::int64_t k = reverse ? n - 1 - step : step;
        const T v = in[base + k * inner];
        if (exclusive) {
          out[base + k * inner] = reduce::store_value(running);
          running = combine(running, v);
        } else {
          running = step == 0 ? v : combine(running, v);
          out[base + k * inner] = reduce::store_value(running);
        }
      }
    }
  }
}

// A cumulative operator. `Step` names the operator (Step::kName) and gives, for each element type
// T, Step::start<T>() (the exclusive y[0]) and Step::combine<T>(running, v) (one step).
template <class Step>
class CumulativeKernel final : public OpKernel {
 public:
  CumulativeKernel(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64, DType::I32, DType::I64, DType::U32, DType::U64});
    context.require_type(1, {DType::I32, DType::I64});
    if (context.input_shape(0).rank() == 0) context.node().fail_invalid("input must have rank 1 or more");
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const int axis = read_axis(context);
    switch (x.dtype()) {
      case DType::F32: run_typed<float>(context, x, axis); break;
      case DType::F64: run_typed<double>(context, x, axis); break;
      case DType::I32: run_typed<std::int32_t>(context, x, axis); break;
      case DType::I64: run_typed<std::int64_t>(context, x, axis); break;
      case DType::U32: run_typed<std::uint32_t>(context, x, axis); break;
      case DType::U64: run_typed<std::uint64_t>(context, x, axis); break;
      default: break;  // refused by infer
    }
  }

 private:
  // The axis input is read at run time: one int32/int64 value; outside [-rank, rank) it is
  // InvalidInput (spec/ops/norms.md section 8).
  int read_axis(const RunContext& context) const {
    const NodeInfo& node = context.node();
    const Tensor& a = context.input(1);
    auto fail = [&](const std::string& message) {
      throw SessionError(SessionErrorKind::InvalidInput, std::string(Step::kName) + ": " + message, node.name());
    };
    if (a.element_count() != 1) fail("axis must hold one value, not " + std::to_string(a.element_count()));
    const std::int64_t value = a.dtype() == DType::I64 ? a.to_vector<std::int64_t>()[0]
                                                        : static_cast<std::int64_t>(a.to_vector<std::int32_t>()[0]);
    const int rank = context.input(0).rank();
    if (value < -static_cast<std::int64_t>(rank) || value >= rank) {
      fail("axis " + std::to_string(value) + " outside [" + std::to_string(-rank) + ", " + std::to_string(rank) + ")");
    }
    return static_cast<int>(value < 0 ? value + rank : value);
  }

  template <class T>
  void run_typed(RunContext& context, const Tensor& x, int axis) const {
    T* out = context.output(0).mutable_data<T>().data();
    walk<T>(x, axis, exclusive_, reverse_, Step::template start<T>(),
            [](T running, T v) { return Step::template combine<T>(running, v); }, out);
  }

  bool exclusive_;
  bool reverse_;
};

}  // namespace onemodel::cumulative
