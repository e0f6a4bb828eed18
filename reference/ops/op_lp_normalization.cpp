// LpNormalization (opsets 1+): spec/ops/losses.md section 7. Along `axis` (default -1), each line
// x[0..n) is divided by its norm: p = 1, s = Sum16(|x[j]|); p = 2, s = sqrt(Sum16(x[j] * x[j]))
// (product rounded, then added). y[j] = x[j] / s; a zero norm gives zeros (ops-coverage.md,
// "Settled semantics"). float32 and float64. Exact: only + * / and sqrt in that order.
#include <cmath>
#include <vector>

#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class LpNormalization final : public OpKernel {
 public:
  LpNormalization(std::int64_t axis, std::int64_t p) : axis_(axis), p_(p) {}
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    if (x.rank() == 0) context.node().fail_invalid("input must have rank 1 or more");
    (void)norms::normalize_axis(context.node(), axis_, x.rank());
    context.set_output(0, context.input_type(0), x);
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) compute<double>(context);
    else compute<float>(context);
  }

 private:
  template <class T>
  void compute(RunContext& context) const {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t outer = norms::extent_product(shape, 0, axis);
    const std::int64_t n = shape[axis];
    const std::int64_t inner = norms::extent_product(shape, axis + 1, shape.rank());
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const T* line = in + o * n * inner + i;
        T* result = out + o * n * inner + i;
        CanonicalSum16<T> sum;
        for (std::int64_t j = 0; j < n; ++j) {
          const T v = line[j * inner];
          sum.add(p_ == 1 ? std::fabs(v) : v * v);
        }
        const T norm = p_ == 1 ? sum.result() : std::sqrt(sum.result());
        for (std::int64_t j = 0; j < n; ++j) {
          result[j * inner] = norm == T(0) ? T(0) : norms::store(line[j * inner] / norm);
        }
      }
    }
  }
  std::int64_t axis_;
  std::int64_t p_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lp_normalization(const NodeInfo& node) {
  const std::int64_t p = node.get_int("p", 2);
  if (p != 1 && p != 2) node.fail_invalid("p must be 1 or 2, not " + std::to_string(p));
  return std::make_unique<LpNormalization>(node.get_int("axis", -1), p);
}

}  // namespace onemodel
