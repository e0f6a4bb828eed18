// LayerNormalization (opset 17+): spec/ops/norms.md section 3. float32 only; stash_type is read
// and ignored (every sum is accumulated in float32, section 1). Optional Mean and InvStdDev.
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class LayerNormalization final : public OpKernel {
 public:
  LayerNormalization(std::int64_t axis, float epsilon) : axis_(axis), epsilon_(epsilon) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    context.require_type(1, {DType::F32});
    const Shape& x = context.input_shape(0);
    const int axis = norms::normalize_axis(context.node(), axis_, x.rank());
    norms::check_broadcast_to_input(context.node(), context.input_shape(1), x, "Scale");
    if (context.has_input(2)) {
      context.require_type(2, {DType::F32});
      norms::check_broadcast_to_input(context.node(), context.input_shape(2), x, "B");
    }
    context.set_output(0, DType::F32, x);
    // Mean and InvStdDev: the input's shape with the normalized dimensions replaced by ones.
    std::vector<std::int64_t> stats;
    for (int d = 0; d < x.rank(); ++d) stats.push_back(d < axis ? x[d] : 1);
    const Shape stats_shape(std::span<const std::int64_t>(stats.data(), stats.size()));
    if (context.output_wanted(1)) context.set_output(1, DType::F32, stats_shape);
    if (context.output_wanted(2)) context.set_output(2, DType::F32, stats_shape);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t rows = norms::extent_product(shape, 0, axis);
    const std::int64_t cols = norms::extent_product(shape, axis, shape.rank());
    // Scale and B broadcast to the whole input: value (r, j) is values[r * row_stride + j].
    const norms::ExpandedParameter scale = norms::expand_parameter(context.input(1), shape, axis);
    const bool has_bias = context.has_input(2);
    const norms::ExpandedParameter bias =
        has_bias ? norms::expand_parameter(context.input(2), shape, axis) : norms::ExpandedParameter{};
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
    float* mean_out = context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
    float* inv_out = context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* row = in + r * cols;
      float* dst = out + r * cols;
      const norms::RowMoments m = norms::row_moments(row, cols, epsilon_, /*rms=*/false);
      const float* s = scale.values.data() + r * scale.row_stride;
      const float* b = has_bias ? bias.values.data() + r * bias.row_stride : nullptr;
      for (std::int64_t j = 0; j < cols; ++j) {
        const float y = has_bias ? norms::normalize_element(row[j], m, s[j], b[j]) : norms::normalize_element(row[j], m, s[j]);
        dst[j] = norms::store(y);
      }
      if (mean_out != nullptr) mean_out[r] = norms::store(m.mean);
      if (inv_out != nullptr) inv_out[r] = norms::store(m.inv);
    }
  }

 private:
  std::int64_t axis_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_layer_normalization(const NodeInfo& node) {
  (void)node.get_int("stash_type", 1);  // read and ignored: spec/ops/norms.md section 1
  return std::make_unique<LayerNormalization>(node.get_int("axis", -1), node.get_float("epsilon", 1e-5f));
}

}  // namespace onemodel
