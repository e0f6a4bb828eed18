// LRN (opsets 1, 13; 13 only widened the types), float32 and float64 (spec/ops/norms.md section 10,
// from the ONNX LRN text): for X[n, c, d...] the channels i of
// [max(0, c - floor((size - 1) / 2)), min(C - 1, c + ceil((size - 1) / 2))] give
// square_sum = sum of X[n, i, d...]^2 (each square rounded, summed from +0 in ascending i), and
// Y = X / (bias + (alpha / size) * square_sum)^beta: alpha / size (size converted to the type)
// rounded, times square_sum rounded, plus bias rounded, raised to beta by the exact Pow
// (spec/exact-transcendentals.md section 10), then the division. Exact in both types; NaN
// stored canonical.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_pow.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class Lrn final : public OpKernel {
 public:
  explicit Lrn(const NodeInfo& node)
      : alpha_(node.get_float("alpha", 0.0001f)),
        beta_(node.get_float("beta", 0.75f)),
        bias_(node.get_float("bias", 1.0f)),
        size_(node.get_int("size", 0)) {
    // size is required and counts channels: 0 (absent) or negative has no region.
    if (size_ < 1) node.fail_invalid("attribute 'size' must be given and positive (got " + std::to_string(size_) + ")");
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    if (x.rank() < 3) context.node().fail_invalid("X must have rank 3 or more (N, C, spatial...), got " + std::to_string(x.rank()));
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
    const Shape& shape = x_t.shape();
    const std::int64_t batches = shape[0];
    const std::int64_t channels = shape[1];
    const std::int64_t inner = norms::extent_product(shape, 2, shape.rank());
    const auto x = x_t.to_vector<T>();
    auto y = context.output(0).mutable_data<T>();
    // size >= 1, so both halves are in [0, 2^62): c - before and c + after cannot overflow.
    const std::int64_t before = (size_ - 1) / 2;
    const std::int64_t after = size_ / 2;  // ceil((size - 1) / 2)
    const T scale = static_cast<T>(alpha_) / static_cast<T>(size_);
    const double beta = static_cast<double>(beta_);
    const T bias = static_cast<T>(bias_);
    for (std::int64_t n = 0; n < batches; ++n) {
      for (std::int64_t c = 0; c < channels; ++c) {
        const std::int64_t first = c - before < 0 ? 0 : c - before;
        const std::int64_t last = c + after > channels - 1 ? channels - 1 : c + after;
        for (std::int64_t s = 0; s < inner; ++s) {
          T square_sum = T{0};
          for (std::int64_t i = first; i <= last; ++i) {
            const T v = x[static_cast<std::size_t>((n * channels + i) * inner + s)];
            square_sum = square_sum + v * v;
          }
          const std::size_t at = static_cast<std::size_t>((n * channels + c) * inner + s);
          const T base = bias + scale * square_sum;
          y[at] = norms::store(x[at] / exact::pow(base, beta));
        }
      }
    }
  }

  float alpha_, beta_, bias_;
  std::int64_t size_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lrn(const NodeInfo& node) { return std::make_unique<Lrn>(node); }

}  // namespace onemodel
