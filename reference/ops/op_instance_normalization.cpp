// InstanceNormalization (opset 6+): spec/ops/norms.md section 4. A row is one (sample, channel)
// plane; steps 1-4 of section 3 with one scalar scale and bias per channel. float32, and float64
// by the same steps in binary64 (epsilon widened exactly): only + - * / and sqrt, so exact.
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class InstanceNormalization final : public OpKernel {
 public:
  explicit InstanceNormalization(float epsilon) : epsilon_(epsilon) {}

  void infer(InferContext& context) const override {
    for (std::size_t i = 0; i < 3; ++i) context.require_type(i, {DType::F32, DType::F64});
    // One type T for input, scale and B (the ONNX constraint).
    for (std::size_t i = 1; i < 3; ++i) {
      if (context.input_type(i) != context.input_type(0)) {
        context.node().fail_invalid("input " + std::to_string(i) + " has element type " +
                                    std::string(dtype_name(context.input_type(i))) + ", input 0 " +
                                    std::string(dtype_name(context.input_type(0))));
      }
    }
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2) context.node().fail_invalid("input must have rank 2 or more, not " + x.to_string());
    const Shape expected{x[1]};
    if (!(context.input_shape(1) == expected) || !(context.input_shape(2) == expected)) {
      context.node().fail_invalid("scale and B must have shape " + expected.to_string());
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
    const Tensor x = context.input(0).contiguous();
    const Tensor scale = context.input(1).contiguous();
    const Tensor bias = context.input(2).contiguous();
    const Shape& shape = x.shape();
    const std::int64_t channels = shape[1];
    const std::int64_t rows = norms::extent_product(shape, 0, 2);
    const std::int64_t cols = norms::extent_product(shape, 2, shape.rank());
    const T* in = x.data<T>().data();
    const T* s = scale.data<T>().data();
    const T* b = bias.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t c = r % channels;
      const T* row = in + r * cols;
      const norms::RowMomentsOf<T> m = norms::row_moments(row, cols, static_cast<T>(epsilon_), /*rms=*/false);
      for (std::int64_t j = 0; j < cols; ++j) {
        out[r * cols + j] = norms::store(norms::normalize_element(row[j], m, s[c], b[c]));
      }
    }
  }

  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_instance_normalization(const NodeInfo& node) {
  return std::make_unique<InstanceNormalization>(node.get_float("epsilon", 1e-5f));
}

}  // namespace onemodel
