// BatchNormalization, inference only, float32 or float64 (spec/ops/products-conv.md section 9, from
// ops-conv.md "BatchNormalization"). Per channel a = scale / sqrt(var + epsilon) and
// b = bias - mean * a, then y = x * a + b; each operation rounded on its own (no fused
// multiply-add); NaN stored canonical. BatchNormalization_7 (opsets 7, 8) refuses spatial = 0;
// BatchNormalization_9 (9 and later) refuses training_mode = 1 (opset 14 and later). The
// running-statistics outputs are not produced. float64 (all five inputs float64; ONNX 15 allows
// mixed types, which are Unsupported here) follows the same steps in binary64, exact.
#include <cmath>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class BatchNormalization final : public OpKernel {
 public:
  explicit BatchNormalization(const NodeInfo& node, bool has_spatial) : epsilon_(node.get_float("epsilon", 1e-5f)) {
    if (has_spatial && node.get_int("spatial", 1) != 1) node.fail_unsupported("spatial = 0");
    if (node.get_int("training_mode", 0) != 0) node.fail_unsupported("training_mode = 1");
    in_place_input = 0;
  }
  void infer(InferContext& context) const override {
    for (std::size_t i = 0; i < 5; ++i) context.require_type(i, {DType::F32, DType::F64});
    for (std::size_t i = 1; i < 5; ++i) {
      if (context.input_type(i) != context.input_type(0)) {
        context.node().fail_unsupported("input " + std::to_string(i) + " of element type " +
                                        std::string(dtype_name(context.input_type(i))) + " beside X of type " +
                                        std::string(dtype_name(context.input_type(0))));
      }
    }
    for (std::size_t i = 1; i < context.output_count(); ++i) {
      if (context.output_wanted(i)) context.node().fail_unsupported("the running-statistics outputs (training)");
    }
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2) context.node().fail_invalid("X must have rank 2 or more");
    for (std::size_t i = 1; i < 5; ++i) {
      const Shape& s = context.input_shape(i);
      if (s.rank() != 1 || s[0] != x[1]) context.node().fail_invalid("input " + std::to_string(i) + " must be 1-D with C elements");
    }
    context.set_output(0, context.input_type(0), x);
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  template <class T>
  void run_typed(const RunContext& context) const {
    const Tensor& x_t = context.input(0);
    const auto x = x_t.to_vector<T>();
    const auto scale = context.input(1).to_vector<T>();
    const auto bias = context.input(2).to_vector<T>();
    const auto mean = context.input(3).to_vector<T>();
    const auto var = context.input(4).to_vector<T>();
    auto y = context.output(0).mutable_data<T>();
    const T epsilon = static_cast<T>(epsilon_);
    const std::int64_t n = x_t.shape()[0], c = x_t.shape()[1];
    const std::int64_t plane = (n * c) == 0 ? 0 : x_t.element_count() / (n * c);
    std::size_t i = 0;
    for (std::int64_t b = 0; b < n; ++b) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const std::size_t k = static_cast<std::size_t>(ch);
        const T denom = std::sqrt(var[k] + epsilon);
        const T a = scale[k] / denom;
        const T mean_a = mean[k] * a;
        const T shift = bias[k] - mean_a;
        for (std::int64_t p = 0; p < plane; ++p, ++i) {
          const T xa = x[i] * a;
          y[i] = norms::store(xa + shift);
        }
      }
    }
  }

  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_batch_normalization_7(const NodeInfo& node) {
  return std::make_unique<BatchNormalization>(node, true);
}
std::unique_ptr<OpKernel> make_batch_normalization_9(const NodeInfo& node) {
  return std::make_unique<BatchNormalization>(node, false);
}

}  // namespace onemodel
