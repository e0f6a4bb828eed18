// LayerNormalization (opset 17+): spec/ops/norms.md section 3. float32: stash_type is read and
// ignored (every sum is accumulated in float32, section 1). float64 (section 9): X, Scale and B all
// float64, stash_type 1 only: stage one in float32 as the ONNX function body casts it (X rounded,
// steps 1-3, n = (x - mean) * inv), then y = n * scale + bias in binary64; exact. Optional Mean and
// InvStdDev are float32 for both (the ONNX type U).
#include <string>

#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class LayerNormalization final : public OpKernel {
 public:
  LayerNormalization(std::int64_t axis, float epsilon, std::int64_t stash_type)
      : axis_(axis), epsilon_(epsilon), stash_type_(stash_type) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const DType type = context.input_type(0);
    context.require_type(1, {type});
    if (type == DType::F64) norms::check_f64_stash_type(context.node(), stash_type_);
    const Shape& x = context.input_shape(0);
    const int axis = norms::normalize_axis(context.node(), axis_, x.rank());
    norms::check_broadcast_to_input(context.node(), context.input_shape(1), x, "Scale");
    if (context.has_input(2)) {
      context.require_type(2, {type});
      norms::check_broadcast_to_input(context.node(), context.input_shape(2), x, "B");
    }
    context.set_output(0, type, x);
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
    float* mean_out = context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;
    float* inv_out = context.output_wanted(2) ? context.output(2).mutable_data<float>().data() : nullptr;
    if (x.dtype() == DType::F64) return run_f64(context, x, axis, rows, cols, mean_out, inv_out);
    // Scale and B broadcast to the whole input: value (r, j) is values[r * row_stride + j].
    const norms::ExpandedParameter scale = norms::expand_parameter(context.input(1), shape, axis);
    const bool has_bias = context.has_input(2);
    const norms::ExpandedParameter bias =
        has_bias ? norms::expand_parameter(context.input(2), shape, axis) : norms::ExpandedParameter{};
    const float* in = x.data<float>().data();
    float* out = context.output(0).mutable_data<float>().data();
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
  void run_f64(const RunContext& context, const Tensor& x, int axis, std::int64_t rows, std::int64_t cols,
               float* mean_out, float* inv_out) const {
    const Shape& shape = x.shape();
    const auto scale = norms::expand_parameter_of<double>(context.input(1), shape, axis);
    const bool has_bias = context.has_input(2);
    const auto bias = has_bias ? norms::expand_parameter_of<double>(context.input(2), shape, axis)
                               : norms::ExpandedParameterOf<double>{};
    const double* in = x.data<double>().data();
    double* out = context.output(0).mutable_data<double>().data();
    std::vector<float> row, n;
    for (std::int64_t r = 0; r < rows; ++r) {
      const norms::RowMoments m = norms::stage_one_in_float32(in + r * cols, cols, epsilon_, /*rms=*/false, row, n);
      const double* s = scale.values.data() + r * scale.row_stride;
      const double* b = has_bias ? bias.values.data() + r * bias.row_stride : nullptr;
      for (std::int64_t j = 0; j < cols; ++j) {
        // NormalizedT = Cast(Normalized, T); Scaled = NormalizedT * Scale; Biased = Scaled + B.
        const double scaled = static_cast<double>(n[static_cast<std::size_t>(j)]) * s[j];
        out[r * cols + j] = norms::store(has_bias ? scaled + b[j] : scaled);
      }
      if (mean_out != nullptr) mean_out[r] = norms::store(m.mean);
      if (inv_out != nullptr) inv_out[r] = norms::store(m.inv);
    }
  }

  std::int64_t axis_;
  float epsilon_;
  std::int64_t stash_type_;
};

}  // namespace

std::unique_ptr<OpKernel> make_layer_normalization(const NodeInfo& node) {
  // float32 reads and ignores stash_type (spec/ops/norms.md section 1); float64 checks it (section 9).
  return std::make_unique<LayerNormalization>(node.get_int("axis", -1), node.get_float("epsilon", 1e-5f),
                                              node.get_int("stash_type", 1));
}

}  // namespace onemodel
