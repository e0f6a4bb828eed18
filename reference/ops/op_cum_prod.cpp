// CumProd (opset 26, its only version): spec/ops/losses.md section 6. Sequential products along
// the axis in the direction of accumulation, the CumSum order of spec/ops/norms.md section 8 with multiplication: inclusive
// y[i] = y[i-1] * x[i] with y[0] = x[0]; exclusive y[0] = 1 and y[i] = y[i-1] * x[i-1]; reverse runs
// from the last element. The axis input (a single int32/int64 value) is read at run time; outside
// [-rank, rank) it is InvalidInput. float32, float64, int32/64, uint32/64 (integers wrap). Exact.
#include <string>

#include "onemodel/session_error.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

class CumProd final : public OpKernel {
 public:
  CumProd(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}

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
  int read_axis(const RunContext& context) const {
    const NodeInfo& node = context.node();
    const Tensor& a = context.input(1);
    auto fail = [&](const std::string& message) {
      throw SessionError(SessionErrorKind::InvalidInput, "CumProd: " + message, node.name());
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
    const Shape& shape = x.shape();
    const std::int64_t outer = norms::extent_product(shape, 0, axis);
    const std::int64_t n = shape[axis];
    const std::int64_t inner = norms::extent_product(shape, axis + 1, shape.rank());
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t base = o * n * inner + i;
        T running = T(1);
        for (std::int64_t step = 0; step < n; ++step) {
          const std::int64_t k = reverse_ ? n - 1 - step : step;
          const T v = in[base + k * inner];
          if (exclusive_) {
            out[base + k * inner] = reduce::store_value(running);
            running = reduce::mul(running, v);
          } else {
            running = step == 0 ? v : reduce::mul(running, v);
            out[base + k * inner] = reduce::store_value(running);
          }
        }
      }
    }
  }

  bool exclusive_;
  bool reverse_;
};

}  // namespace

std::unique_ptr<OpKernel> make_cum_prod(const NodeInfo& node) {
  return std::make_unique<CumProd>(node.get_int("exclusive", 0) != 0, node.get_int("reverse", 0) != 0);
}

}  // namespace onemodel
