// BatchNormalization, float32 or float64 (spec/ops/products-conv.md section 9, from ops-conv.md
// "BatchNormalization"). Per channel a = scale / sqrt(var + epsilon) and b = bias - mean * a, then
// y = x * a + b; each operation rounded on its own (no fused multiply-add); NaN stored canonical.
// BatchNormalization_7 (opsets 7, 8) refuses spatial = 0. training_mode = 1 (opset 14 and later,
// section 9.1): mean and var are the batch's own, Sum16 over (n, spatial) per channel, and the
// optional outputs running_mean and running_var are input * momentum + batch * (1 - momentum).
// Before opset 14 (no training_mode) the running-statistics outputs are Unsupported. float64 (all
// five inputs float64; ONNX 15 allows mixed types, which are Unsupported here) follows the same
// steps in binary64, exact.
#include <cmath>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class BatchNormalization final : public OpKernel {
 public:
  explicit BatchNormalization(const NodeInfo& node, bool has_spatial)
      : epsilon_(node.get_float("epsilon", 1e-5f)), momentum_(node.get_float("momentum", 0.9f)) {
    if (has_spatial && node.get_int("spatial", 1) != 1) node.fail_unsupported("spatial = 0");
    const std::int64_t training = node.get_int("training_mode", 0);
    if (training != 0 && training != 1) node.fail_invalid("training_mode must be 0 or 1");
    // The attribute exists from opset 14 (section 9.1); earlier schemas had no training mode.
    if (training == 1 && node.opset() < 14) node.fail_unsupported("training_mode before opset 14");
    training_ = training == 1;
    // Training mode reads all of X for the statistics before writing Y: no in-place output.
    if (!training_) in_place_input = 0;
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
      // ONNX (opset 14 on): "When training_mode=False, extra outputs are invalid", and there are
      // three outputs at most. Before opset 14 the training outputs are not served.
      if (context.output_wanted(i) && (!training_ || i >= 3)) {
        if (context.node().opset() >= 14) context.node().fail_invalid("output " + std::to_string(i) + " needs training_mode = 1 (and at most 3 outputs)");
        context.node().fail_unsupported("the running-statistics outputs (training)");
      }
    }
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2) context.node().fail_invalid("X must have rank 2 or more");
    for (std::size_t i = 1; i < 5; ++i) {
      const Shape& s = context.input_shape(i);
      if (s.rank() != 1 || s[0] != x[1]) context.node().fail_invalid("input " + std::to_string(i) + " must be 1-D with C elements");
    }
    context.set_output(0, context.input_type(0), x);
    for (std::size_t i = 1; i < 3 && i < context.output_count(); ++i) {
      if (context.output_wanted(i)) context.set_output(i, context.input_type(0), context.input_shape(i + 2));
    }
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  // Section 9.1: the batch mean and population variance of each channel over (n, spatial), terms
  // in increasing n then spatial position: mean = Sum16(x) / M, var = Sum16(d * d) / M with
  // d = x - mean (each operation rounded), M = N * plane converted to T. Then the running
  // statistics: (input * momentum) + (batch * (1 - momentum)), each operation rounded.
  template <class T>
  void batch_statistics(const RunContext& context, const std::vector<T>& x, std::int64_t n, std::int64_t c,
                        std::int64_t plane, std::vector<T>& mean, std::vector<T>& var) const {
    const T count = static_cast<T>(n * plane);
    for (std::int64_t ch = 0; ch < c; ++ch) {
      CanonicalSum16<T> sum;
      for (std::int64_t b = 0; b < n; ++b) {
        const std::size_t base = static_cast<std::size_t>((b * c + ch) * plane);
        for (std::int64_t p = 0; p < plane; ++p) sum.add(x[base + static_cast<std::size_t>(p)]);
      }
      const T m = sum.result() / count;
      CanonicalSum16<T> squares;
      for (std::int64_t b = 0; b < n; ++b) {
        const std::size_t base = static_cast<std::size_t>((b * c + ch) * plane);
        for (std::int64_t p = 0; p < plane; ++p) {
          const T d = x[base + static_cast<std::size_t>(p)] - m;
          squares.add(d * d);
        }
      }
      mean[static_cast<std::size_t>(ch)] = m;
      var[static_cast<std::size_t>(ch)] = squares.result() / count;
    }
    const T momentum = static_cast<T>(momentum_);
    const T keep = T{1} - momentum;
    const auto input_mean = context.input(3).to_vector<T>();
    const auto input_var = context.input(4).to_vector<T>();
    for (std::size_t i = 1; i < 3 && i < context.output_count(); ++i) {
      if (!context.output_wanted(i)) continue;
      const std::vector<T>& old = i == 1 ? input_mean : input_var;
      const std::vector<T>& batch = i == 1 ? mean : var;
      auto out = context.output(i).mutable_data<T>();
      for (std::size_t k = 0; k < out.size(); ++k) {
        const T a = old[k] * momentum;
        const T b = batch[k] * keep;
        out[k] = norms::store(a + b);
      }
    }
  }

  template <class T>
  void run_typed(const RunContext& context) const {
    const Tensor& x_t = context.input(0);
    const auto x = x_t.to_vector<T>();
    const auto scale = context.input(1).to_vector<T>();
    const auto bias = context.input(2).to_vector<T>();
    auto mean = context.input(3).to_vector<T>();
    auto var = context.input(4).to_vector<T>();
    auto y = context.output(0).mutable_data<T>();
    const T epsilon = static_cast<T>(epsilon_);
    const std::int64_t n = x_t.shape()[0], c = x_t.shape()[1];
    const std::int64_t plane = (n * c) == 0 ? 0 : x_t.element_count() / (n * c);
    if (training_) batch_statistics<T>(context, x, n, c, plane, mean, var);
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
  float momentum_;
  bool training_ = false;
};

}  // namespace

std::unique_ptr<OpKernel> make_batch_normalization_7(const NodeInfo& node) {
  return std::make_unique<BatchNormalization>(node, true);
}
std::unique_ptr<OpKernel> make_batch_normalization_9(const NodeInfo& node) {
  return std::make_unique<BatchNormalization>(node, false);
}

}  // namespace onemodel
