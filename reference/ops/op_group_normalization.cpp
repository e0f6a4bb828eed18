// GroupNormalization: spec/ops/norms.md section 4. A row is one (sample, group) block of
// C / num_groups channels times the spatial positions; steps 1-4 of section 3. Opsets 18-20
// (GroupNormalization_18) index scale and bias by group, one scalar for the whole row; opset 21+
// (GroupNormalization_21) has per-channel parameters spread across the block. float64
// (spec/ops/norms.md section 9), exact: opsets 18-20 run steps 1-4 in binary64 (their ONNX function
// computes in T); opset 21 has stash_type, 1 only: stage one in float32 as its function body casts
// it, then y = n * scale + bias in binary64. float32 reads and ignores stash_type.
#include <type_traits>
#include <vector>

#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

class GroupNormalization final : public OpKernel {
 public:
  GroupNormalization(float epsilon, std::int64_t groups, bool per_channel, std::int64_t stash_type)
      : epsilon_(epsilon), groups_(groups), per_channel_(per_channel), stash_type_(stash_type) {}

  void infer(InferContext& context) const override {
    for (std::size_t i = 0; i < 3; ++i) {
      context.require_type(i, {DType::F32, DType::F64});
      if (context.input_type(i) != context.input_type(0)) {
        context.node().fail_invalid("input " + std::to_string(i) + " has element type " +
                                    std::string(dtype_name(context.input_type(i))) + ", input 0 " +
                                    std::string(dtype_name(context.input_type(0))));
      }
    }
    if (per_channel_ && context.input_type(0) == DType::F64) norms::check_f64_stash_type(context.node(), stash_type_);
    const Shape& x = context.input_shape(0);
    if (x.rank() < 2) context.node().fail_invalid("input must have rank 2 or more, not " + x.to_string());
    if (x[1] % groups_ != 0) {
      context.node().fail_invalid("channels (" + std::to_string(x[1]) + ") not divisible by num_groups (" +
                                  std::to_string(groups_) + ")");
    }
    const Shape expected{per_channel_ ? static_cast<std::int64_t>(x[1]) : groups_};
    if (!(context.input_shape(1) == expected) || !(context.input_shape(2) == expected)) {
      context.node().fail_invalid("scale and bias must have shape " + expected.to_string());
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
    const std::int64_t per_group = channels / groups_;
    const std::int64_t spatial = norms::extent_product(shape, 2, shape.rank());
    const std::int64_t rows = static_cast<std::int64_t>(shape[0]) * groups_;
    const std::int64_t cols = per_group * spatial;
    const T* in = x.data<T>().data();
    const T* s = scale.data<T>().data();
    const T* b = bias.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    if constexpr (std::is_same_v<T, double>) {
      if (per_channel_) {
        // Opset 21, float64: stage one in float32 (NormalizedU), cast to T, then scale * n + bias.
        std::vector<float> row32, n;
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::int64_t g = r % groups_;
          (void)norms::stage_one_in_float32(in + r * cols, cols, epsilon_, /*rms=*/false, row32, n);
          for (std::int64_t j = 0; j < cols; ++j) {
            const std::int64_t p = g * per_group + j / spatial;
            const double scaled = s[p] * static_cast<double>(n[static_cast<std::size_t>(j)]);
            out[r * cols + j] = norms::store(scaled + b[p]);
          }
        }
        return;
      }
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t g = r % groups_;
      const T* row = in + r * cols;
      const norms::RowMomentsOf<T> m = norms::row_moments(row, cols, static_cast<T>(epsilon_), /*rms=*/false);
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::int64_t p = per_channel_ ? g * per_group + j / spatial : g;
        out[r * cols + j] = norms::store(norms::normalize_element(row[j], m, s[p], b[p]));
      }
    }
  }

  float epsilon_;
  std::int64_t groups_;
  bool per_channel_;
  std::int64_t stash_type_;
};

std::unique_ptr<OpKernel> make(const NodeInfo& node, bool per_channel) {
  // float32 ignores stash_type (spec/ops/norms.md section 1); opset 21 float64 checks it (section 9).
  const std::int64_t stash_type = node.get_int("stash_type", 1);
  const std::int64_t groups = node.required_int("num_groups");
  if (groups <= 0) node.fail_invalid("num_groups must be positive, not " + std::to_string(groups));
  // num_groups divides the channel extent (at most 2^31 - 1) or the extent is 0; a larger value
  // would enter N * num_groups and the scale's shape unchecked (spec/operator-contract.md section 6).
  if (groups > kMaxElements) node.fail_unsupported("num_groups " + std::to_string(groups) + " beyond the library's limits");
  return std::make_unique<GroupNormalization>(node.get_float("epsilon", 1e-5f), groups, per_channel, stash_type);
}

}  // namespace

std::unique_ptr<OpKernel> make_group_normalization_18(const NodeInfo& node) { return make(node, false); }
std::unique_ptr<OpKernel> make_group_normalization_21(const NodeInfo& node) { return make(node, true); }

}  // namespace onemodel
