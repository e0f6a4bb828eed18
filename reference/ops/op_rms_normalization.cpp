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
    (void)norms::normalize_axis(context.node(), axis_, x.rank());  // refuses an axis outside [-rank, rank)
    norms::check_broadcast_to_input(context.node(), context.input_shape(1), x, "scale");
    context.set_output(0, DType::F32, x);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t rows = norms::extent_product(shape, 0, axis);
    const std::int64_t cols = norms::extent_product(shape, axis, shape.rank());
    // scale broadcasts to the whole input: value (r, j) is values[r * row_stride + j].
    const norms::ExpandedParameter scale = norms::expand_parameter(context.input(1), shape, axis);
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* row = in + r * cols;
      const norms::RowMoments m = norms::row_moments(row, cols, epsilon_, /*rms=*/true);
      const float* s = scale.values.data() + r * scale.row_stride;
      for (std::int64_t j = 0; j < cols; ++j) {
        out[r * cols + j] = norms::store(norms::normalize_element(row[j], m, s[j]));
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
