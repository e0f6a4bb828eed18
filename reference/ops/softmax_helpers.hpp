// The row walk shared by Softmax, LogSoftmax and Hardmax (spec/ops/norms.md section 5): up to
// opset 12 the input is flattened to 2-D at `axis` (default 1) and each row is normalised; from
// opset 13 the operator works along one axis of the original shape (default -1), the row being
// gathered into a scratch copy and moved back. Each operator supplies its row function for
// float32 and one for float64 (spec/ops/norms.md section 9).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "reference/ops/norm_helpers.hpp"

namespace onemodel::norms {

// Writes y[0..n) from x[0..n) for one row; stores need not be canonical (the walk makes them so).
using RowFunction = void (*)(const float* x, float* y, std::int64_t n);
using RowFunction64 = void (*)(const double* x, double* y, std::int64_t n);

// The largest element, NaN ignored; -inf when there is none (kernels-attention.md, Softmax).
template <class T>
T row_max_ignoring_nan(const T* x, std::int64_t n) noexcept {
  T m = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    if (x[j] > m) m = x[j];
  }
  return m;
}

class SoftmaxFamilyKernel final : public OpKernel {
 public:
  // float64_exact_defined: false when row64 uses the platform's exp or log (OpKernel::float64_exact).
  SoftmaxFamilyKernel(RowFunction row, RowFunction64 row64, std::int64_t axis, bool coerce_2d,
                      bool float64_exact_defined)
      : row_(row), row64_(row64), axis_(axis), coerce_2d_(coerce_2d) {
    float64_exact = float64_exact_defined;
  }

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    // A scalar has no axis to work along (the ONNX schema asks for rank >= 1).
    if (x.rank() == 0) context.node().fail_invalid("input must have rank 1 or more");
    (void)normalize_axis(context.node(), axis_, x.rank(), coerce_2d_);
    context.set_output(0, context.input_type(0), x);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    if (x.dtype() == DType::F64) return walk<double>(context, x, row64_);
    walk<float>(context, x, row_);
  }

 private:
  template <class T>
  void walk(const RunContext& context, const Tensor& x, void (*row_fn)(const T*, T*, std::int64_t)) const {
    const Shape& shape = x.shape();
    const int axis = normalize_axis(context.node(), axis_, shape.rank(), coerce_2d_);
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    // Coerced 2-D: rows = product before axis, columns = the rest; along one axis: outer x extent
    // x inner, the row being the extent with stride inner.
    const std::int64_t outer = extent_product(shape, 0, axis);
    const std::int64_t n = coerce_2d_ ? extent_product(shape, axis, shape.rank()) : shape[axis];
    const std::int64_t inner = coerce_2d_ ? 1 : extent_product(shape, axis + 1, shape.rank());
    std::vector<T> row(static_cast<std::size_t>(n));
    std::vector<T> result(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t base = o * n * inner + i;
        for (std::int64_t j = 0; j < n; ++j) row[static_cast<std::size_t>(j)] = in[base + j * inner];
        row_fn(row.data(), result.data(), n);
        for (std::int64_t j = 0; j < n; ++j) out[base + j * inner] = store(result[static_cast<std::size_t>(j)]);
      }
    }
  }

  RowFunction row_;
  RowFunction64 row64_;
  std::int64_t axis_;
  bool coerce_2d_;
};

// Opsets 1-12: axis default 1, coerced 2-D. Opsets 13+: axis default -1, along the axis.
inline std::unique_ptr<OpKernel> make_softmax_family(const NodeInfo& node, RowFunction row, RowFunction64 row64,
                                                     bool coerce_2d, bool float64_exact_defined) {
  return std::make_unique<SoftmaxFamilyKernel>(row, row64, node.get_int("axis", coerce_2d ? 1 : -1), coerce_2d,
                                               float64_exact_defined);
}

}  // namespace onemodel::norms
