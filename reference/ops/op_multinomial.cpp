// Multinomial (opset 7; spec/ops/random.md section 10): for each row b of the [batch, classes]
// input of unnormalized log-probabilities, `sample_size` class indices drawn from
// softmax(row). The weights are w_j = exp_f64(x_j - max_j x_j) (the exact binary64 exponential,
// spec/exact-transcendentals.md section 15), their running sums c_j in class order, T = c_(C-1);
// sample k of row b takes the uniform draw u of element b * sample_size + k (section 4) and gives
// the first j with u * T < c_j (the last class of non-zero weight if none). A row with a NaN, or with no finite value, is InvalidInput.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/half.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/random_draws.hpp"

namespace onemodel {
namespace {

double logit(const Tensor& x, std::size_t i) {
  switch (x.dtype()) {
    case DType::F64: return x.data<double>()[i];
    case DType::F32: return x.data<float>()[i];
    case DType::F16: return half_bits_to_float(x.data<std::uint16_t>()[i]);
    default: return bfloat16_bits_to_float(x.data<std::uint16_t>()[i]);
  }
}

class Multinomial final : public OpKernel {
 public:
  Multinomial(std::int64_t sample_size, DType out_type, bool has_seed, float seed)
      : sample_size_(sample_size), out_type_(out_type), has_seed_(has_seed), seed_(seed) {
    draws_random = true;
  }

  void infer(InferContext& context) const override {
    const DType in = context.input_type(0);
    if (in != DType::F32 && in != DType::F64 && in != DType::F16 && in != DType::BF16) {
      context.node().fail_unsupported("input type " + std::string(dtype_name(in)));
    }
    const Shape& s = context.input_shape(0);
    if (s.rank() != 2) context.node().fail_invalid("input must be [batch_size, class_size], got rank " + std::to_string(s.rank()));
    context.set_output(0, out_type_, Shape{s[0], sample_size_});
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const std::int64_t batch = x.shape()[0];
    const std::int64_t classes = x.shape()[1];
    const random_draws::Source source = random_draws::source_for(context, has_seed_, random_draws::float_seed_bits(seed_));
    std::vector<double> cumulative(static_cast<std::size_t>(classes));
    for (std::int64_t b = 0; b < batch; ++b) {
      const auto row = static_cast<std::size_t>(b * classes);
      double top = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < classes; ++j) {
        const double v = logit(x, row + static_cast<std::size_t>(j));
        if (std::isnan(v)) fail_row(context, b, "holds a NaN");
        if (v > top) top = v;
      }
      if (top == std::numeric_limits<double>::infinity()) fail_row(context, b, "holds +infinity");
      if (!std::isfinite(top)) fail_row(context, b, classes == 0 ? "has no class" : "has no finite log-probability");
      double sum = 0.0;
      std::int64_t last_positive = 0;  // a draw that rounding puts past every sum takes this class
      for (std::int64_t j = 0; j < classes; ++j) {
        const double weight = exact::exp_f64(logit(x, row + static_cast<std::size_t>(j)) - top);
        if (weight > 0.0) last_positive = j;
        sum = sum + weight;
        cumulative[static_cast<std::size_t>(j)] = sum;
      }
      for (std::int64_t k = 0; k < sample_size_; ++k) {
        const std::int64_t index = b * sample_size_ + k;
        const std::array<std::uint32_t, 4> w = random_draws::words(source, static_cast<std::uint64_t>(index), 0);
        const double target = random_draws::unit_double(w[0], w[1]) * sum;
        std::int64_t chosen = last_positive;
        for (std::int64_t j = 0; j < classes; ++j) {
          if (target < cumulative[static_cast<std::size_t>(j)]) {
            chosen = j;
            break;
          }
        }
        if (out_type_ == DType::I32) {
          out.mutable_data<std::int32_t>()[static_cast<std::size_t>(index)] = static_cast<std::int32_t>(chosen);
        } else {
          out.mutable_data<std::int64_t>()[static_cast<std::size_t>(index)] = chosen;
        }
      }
    }
  }

 private:
  [[noreturn]] static void fail_row(const RunContext& context, std::int64_t b, const char* why) {
    throw SessionError(SessionErrorKind::InvalidInput, "Multinomial: row " + std::to_string(b) + " " + why,
                       context.node().name());
  }

  std::int64_t sample_size_;
  DType out_type_;
  bool has_seed_;
  float seed_;
};

}  // namespace

std::unique_ptr<OpKernel> make_multinomial(const NodeInfo& node) {
  const std::int64_t dtype = node.get_int("dtype", 6);
  if (dtype != 6 && dtype != 7) node.fail_invalid("dtype " + std::to_string(dtype) + " is not int32 or int64");
  const std::int64_t sample_size = node.get_int("sample_size", 1);
  if (sample_size < 0 || sample_size > std::numeric_limits<std::int32_t>::max()) {
    node.fail_invalid("sample_size " + std::to_string(sample_size) + " is outside [0, 2^31 - 1]");
  }
  return std::make_unique<Multinomial>(sample_size, static_cast<DType>(dtype), node.has("seed"),
                                       node.get_float("seed", 0.0f));
}

}  // namespace onemodel
