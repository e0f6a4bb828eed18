// InstanceNormalization (opset 6+): spec/ops/norms.md section 4. A row is one (sample, channel)
// plane; steps 1-4 of section 3 with one scalar scale and bias per channel. float32 only.
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class InstanceNormalization final : public OpKernel {
 public:
  explicit InstanceNormalization(float epsilon) : epsilon_(epsilon) {}

  void infer(InferContext& context) const override {
    for (std::size_t i = 0; i < 3; ++i) context.require_type(i, {DType::F32});
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2) context.node().fail_invalid("input must have rank 2 or more, not " + x.to_string());
    const Shape expected{x[1]};
    if (!(context.input_shape(1) == expected) || !(context.input_shape(2) == expected)) {
      context.node().fail_invalid("scale and B must have shape " + expected.to_string());
    }
    context.set_output(0, DType::F32, x);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Tensor scale = context.input(1).contiguous();
    const Tensor bias = context.input(2).contiguous();
    const Shape& shape = x.shape();
    const std::int64_t channels = shape[1];
    const std::int64_t rows = norms::extent_product(shape, 0, 2);
    const std::int64_t cols = norms::extent_product(shape, 2, shape.rank());
    const float* in = x.data<float>().data();
    const float* s = scale.data<float>().data();
    const float* b = bias.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t c = r % channels;
      const float* row = in + r * cols;
      const norms::RowMoments m = norms::row_moments(row, cols, epsilon_, /*rms=*/false);
      for (std::int64_t j = 0; j < cols; ++j) {
        out[r * cols + j] = norms::store(norms::normalize_element(row[j], m, s[c], b[c]));
      }
    }
  }

 private:
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_instance_normalization(const NodeInfo& node) {
  return std::make_unique<InstanceNormalization>(node.get_float("epsilon", 1e-5f));
}

}  // namespace onemodel
