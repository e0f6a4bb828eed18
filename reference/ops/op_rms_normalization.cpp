// RMSNormalization (opset 23+): spec/ops/norms.md section 3 with mean = 0, so v is the mean of
// squares; y = ((x - 0) * inv) * scale. float32 only; stash_type read and ignored.
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class RMSNormalization final : public OpKernel {
 public:
  RMSNormalization(std::int64_t axis, float epsilon) : axis_(axis), epsilon_(epsilon) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    context.require_type(1, {DType::F32});
    const Shape& x = context.input_shape(0);
    const int axis = norms::normalize_axis(context.node(), axis_, x.rank());
    norms::check_broadcast_to_normalized(context.node(), context.input_shape(1), x, axis, "scale");
    context.set_output(0, DType::F32, x);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t rows = norms::extent_product(shape, 0, axis);
    const std::int64_t cols = norms::extent_product(shape, axis, shape.rank());
    const std::vector<float> scale = norms::expand_to_normalized(context.input(1), shape, axis);
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* row = in + r * cols;
      const norms::RowMoments m = norms::row_moments(row, cols, epsilon_, /*rms=*/true);
      for (std::int64_t j = 0; j < cols; ++j) {
        out[r * cols + j] = norms::store(norms::normalize_element(row[j], m, scale[static_cast<std::size_t>(j)]));
      }
    }
  }

 private:
  std::int64_t axis_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_rms_normalization(const NodeInfo& node) {
  (void)node.get_int("stash_type", 1);  // read and ignored: spec/ops/norms.md section 1
  return std::make_unique<RMSNormalization>(node.get_int("axis", -1), node.get_float("epsilon", 1e-5f));
}

}  // namespace onemodel
