// MeanVarianceNormalization (opsets 9+): spec/ops/losses.md section 8. The elements sharing the
// indices of the axes not in `axes` (default [0, 2, 3]) form a group, taken in row-major order of
// the reduced axes: mean = Sum16(x) / n, v = Sum16((x - mean)^2) / n, s = sqrt(v),
// y = (x - mean) / s; s = 0 gives zeros (ops-coverage.md, "Settled semantics"). float32, float64.
// Exact: only + - * / and sqrt in that order.
#include <cmath>
#include <vector>

#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class MeanVarianceNormalization final : public OpKernel {
 public:
  explicit MeanVarianceNormalization(std::vector<std::int64_t> axes) : axes_(std::move(axes)) {}
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    (void)reduced_mask(context.node(), context.input_shape(0).rank());
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) compute<double>(context);
    else compute<float>(context);
  }

 private:
  // Which axes are reduced; an axis outside [-rank, rank) or given twice is InvalidModel.
  std::vector<bool> reduced_mask(const NodeInfo& node, int rank) const {
    std::vector<bool> mask(static_cast<std::size_t>(rank), false);
    for (std::int64_t a : axes_) {
      const int axis = norms::normalize_axis(node, a, rank);
      if (mask[static_cast<std::size_t>(axis)]) node.fail_invalid("axis " + std::to_string(a) + " given twice");
      mask[static_cast<std::size_t>(axis)] = true;
    }
    return mask;
  }

  template <class T>
  void compute(RunContext& context) const {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int rank = shape.rank();
    const std::vector<bool> mask = reduced_mask(context.node(), rank);
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    // Group of every flat position: its kept indices, row-major over the kept axes. Walking the
    // flat positions in increasing order visits each group's members in row-major order of the
    // reduced axes.
    const std::int64_t total = x.element_count();
    std::int64_t groups = 1;
    for (int d = 0; d < rank; ++d) {
      if (!mask[static_cast<std::size_t>(d)]) groups *= shape[d];
    }
    std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(groups));
    std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
    for (std::int64_t flat = 0; flat < total; ++flat) {
      std::int64_t g = 0;
      for (int d = 0; d < rank; ++d) {
        if (!mask[static_cast<std::size_t>(d)]) g = g * shape[d] + index[static_cast<std::size_t>(d)];
      }
      members[static_cast<std::size_t>(g)].push_back(flat);
      for (int d = rank - 1; d >= 0; --d) {  // next row-major index
        if (++index[static_cast<std::size_t>(d)] < shape[d]) break;
        index[static_cast<std::size_t>(d)] = 0;
      }
    }
    for (const std::vector<std::int64_t>& group : members) {
      const T n = static_cast<T>(group.size());
      CanonicalSum16<T> sum;
      for (std::int64_t f : group) sum.add(in[f]);
      const T mean = sum.result() / n;
      CanonicalSum16<T> squares;
      for (std::int64_t f : group) {
        const T d = in[f] - mean;
        squares.add(d * d);
      }
      const T s = std::sqrt(squares.result() / n);
      for (std::int64_t f : group) out[f] = s == T(0) ? T(0) : norms::store((in[f] - mean) / s);
    }
  }
  std::vector<std::int64_t> axes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_mean_variance_normalization(const NodeInfo& node) {
  return std::make_unique<MeanVarianceNormalization>(node.get_ints("axes", {0, 2, 3}));
}

}  // namespace onemodel
