// SoftmaxCrossEntropyLoss (opsets 12+): spec/ops/losses.md section 5. log_prob = LogSoftmax of the
// scores along axis 1 (the row order of spec/ops/norms.md section 5), then the gather-weight-reduce
// of section 3. The optional second output is log_prob itself. Exact in both modes (section 5: the
// source refuses it in exact mode, ops-coverage.md "Exactness"; issue 17 asks us to go past it with
// the orders stated there): float32 uses the library's exp and log, float64 the exact binary64
// ones (spec/exact-transcendentals.md section 15).
#include <limits>

#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/loss_helpers.hpp"

namespace onemodel {
namespace {

using namespace losses;

inline float exp_non_positive(float v) noexcept { return exact::exp_non_positive(v); }
inline double exp_non_positive(double v) noexcept { return exact::exp_f64(v); }
inline float log_of(float v) noexcept { return exact::log(v); }
inline double log_of(double v) noexcept { return exact::log_f64(v); }

// Section 5 (spec/ops/norms.md section 5, LogSoftmax): one row of `count` scores `stride` apart.
// m = the largest score, NaN ignored; d[j] = x[j] - m; l = Sum16(exp(d[j])); y[j] = d[j] - log(l).
template <class T>
void log_softmax_strided(const T* x, T* y, std::int64_t count, std::int64_t stride) {
  T m = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < count; ++j) {
    if (x[j * stride] > m) m = x[j * stride];
  }
  CanonicalSum16<T> sum;
  for (std::int64_t j = 0; j < count; ++j) {
    y[j * stride] = x[j * stride] - m;
    sum.add(exp_non_positive(y[j * stride]));
  }
  const T log_l = log_of(sum.result());
  for (std::int64_t j = 0; j < count; ++j) y[j * stride] = norms::store(y[j * stride] - log_l);
}

class SoftmaxCrossEntropyLoss final : public OpKernel {
 public:
  explicit SoftmaxCrossEntropyLoss(LossAttributes attributes) : attributes_(attributes) {}
  void infer(InferContext& context) const override {
    infer_loss_output(context, attributes_);
    if (context.output_wanted(1)) context.set_output(1, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) compute<double>(context);
    else compute<float>(context);
  }

 private:
  template <class T>
  void compute(RunContext& context) const {
    const NodeInfo& node = context.node();
    const Tensor x = context.input(0).contiguous();
    const std::vector<std::int64_t> labels = shape_ops::read_ints(node, context.input(1), "labels");
    std::vector<T> weight;
    if (context.has_input(2)) weight = context.input(2).to_vector<T>();
    const Shape& shape = x.shape();
    const std::int64_t n_count = shape[0];
    const std::int64_t classes = shape[1];
    const std::int64_t inner = inner_extent(shape, 2);
    const Tensor log_prob = context.output_wanted(1) ? context.output(1) : context.scratch(x.dtype(), shape);
    const T* in = x.data<T>().data();
    T* lp = log_prob.mutable_data<T>().data();
    for (std::int64_t n = 0; n < n_count; ++n) {
      for (std::int64_t i = 0; i < inner; ++i) {
        log_softmax_strided<T>(in + n * classes * inner + i, lp + n * classes * inner + i, classes, inner);
      }
    }
    negative_log_likelihood<T>(node, attributes_, lp, n_count, classes, inner, labels,
                               context.has_input(2) ? weight.data() : nullptr,
                               context.output(0).mutable_data<T>().data());
  }
  LossAttributes attributes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_softmax_cross_entropy_loss(const NodeInfo& node) {
  return std::make_unique<SoftmaxCrossEntropyLoss>(read_loss_attributes(node));
}

}  // namespace onemodel
