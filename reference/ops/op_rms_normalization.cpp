// RMSNormalization (opset 23+): spec/ops/norms.md section 3 with mean = 0, so v is the mean of
// squares; y = ((x - 0) * inv) * scale. float32: stash_type read and ignored. float64 (section 9):
// X and scale float64, stash_type 1 only: stage one in float32 as the ONNX function body casts it,
// then y = n * scale in binary64; exact.
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class RMSNormalization final : public OpKernel {
 public:
  RMSNormalization(std::int64_t axis, float epsilon, std::int64_t stash_type)
      : axis_(axis), epsilon_(epsilon), stash_type_(stash_type) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const DType type = context.input_type(0);
    context.require_type(1, {type});
    if (type == DType::F64) norms::check_f64_stash_type(context.node(), stash_type_);
    const Shape& x = context.input_shape(0);
    (void)norms::normalize_axis(context.node(), axis_, x.rank());  // refuses an axis outside [-rank, rank)
    norms::check_broadcast_to_input(context.node(), context.input_shape(1), x, "scale");
    context.set_output(0, type, x);
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    const int axis = norms::normalize_axis(context.node(), axis_, shape.rank());
    const std::int64_t rows = norms::extent_product(shape, 0, axis);
    const std::int64_t cols = norms::extent_product(shape, axis, shape.rank());
    if (x.dtype() == DType::F64) return run_f64(context, x, axis, rows, cols);
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
  void run_f64(const RunContext& context, const Tensor& x, int axis, std::int64_t rows, std::int64_t cols) const {
    const auto scale = norms::expand_parameter_of<double>(context.input(1), x.shape(), axis);
    const double* in = x.data<double>().data();
    double* out = context.output(0).mutable_data<double>().data();
    std::vector<float> row, n;
    for (std::int64_t r = 0; r < rows; ++r) {
      (void)norms::stage_one_in_float32(in + r * cols, cols, epsilon_, /*rms=*/true, row, n);
      const double* s = scale.values.data() + r * scale.row_stride;
      for (std::int64_t j = 0; j < cols; ++j) {
        out[r * cols + j] = norms::store(static_cast<double>(n[static_cast<std::size_t>(j)]) * s[j]);
      }
    }
  }

  std::int64_t axis_;
  float epsilon_;
  std::int64_t stash_type_;
};

}  // namespace

std::unique_ptr<OpKernel> make_rms_normalization(const NodeInfo& node) {
  // float32 reads and ignores stash_type (spec/ops/norms.md section 1); float64 checks it (section 9).
  return std::make_unique<RMSNormalization>(node.get_int("axis", -1), node.get_float("epsilon", 1e-5f),
                                            node.get_int("stash_type", 1));
}

}  // namespace onemodel
