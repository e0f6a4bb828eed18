// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike (spec/ops/random.md sections 7
// and 8; ONNX RandomUniform-22, RandomNormal-22 and their Like forms, opset 1 on). The draws come
// from random_draws.hpp: element i of the output takes its own counter, so the values do not
// depend on how the work is split. Exact in both modes: integer arithmetic, correctly rounded
// binary64 operations, the exact binary64 log and sqrt.
#include <cmath>
#include <string>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/random_draws.hpp"
#include "reference/ops/random_fill.hpp"

namespace onemodel {
namespace {

enum class Law { Uniform, Normal };

struct LawParameters {
  double a = 0.0;  // low (uniform) or mean (normal)
  double b = 1.0;  // high (uniform) or scale (normal)
};

class RandomValues final : public OpKernel {
 public:
  RandomValues(Law law, LawParameters p, bool has_seed, float seed, DType type, bool like, Shape shape)
      : law_(law), p_(p), has_seed_(has_seed), seed_(seed), type_(type), like_(like), shape_(std::move(shape)) {
    draws_random = true;
  }

  void infer(InferContext& context) const override {
    // A Like form without dtype takes its input's type (ONNX RandomUniformLike text), which must
    // then be one the operator produces.
    const bool from_input = like_ && type_ == DType::String;
    const DType type = from_input ? context.input_type(0) : type_;
    if (!random_draws::is_float_output(type)) {
      context.node().fail_invalid("the output type follows the input's, " + std::string(dtype_name(type)) +
                                  ", which is not a floating type; give `dtype`");
    }
    context.set_output(0, type, like_ ? context.input_shape(0) : shape_);
  }

  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const random_draws::Source source = random_draws::source_for(context, has_seed_, random_draws::float_seed_bits(seed_));
    const std::int64_t n = out.element_count();
    for (std::int64_t i = 0; i < n; ++i) {
      const auto index = static_cast<std::uint64_t>(i);
      if (law_ == Law::Uniform) {
        // Section 7: low + (high - low) * u, u in [0, 1) with 53 bits; a value that rounds up to
        // `high` in the output type is moved one step down, so every value is below high.
        const std::array<std::uint32_t, 4> w = random_draws::words(source, index, 0);
        const double u = random_draws::unit_double(w[0], w[1]);
        random_draws::store(out, i, p_.a + (p_.b - p_.a) * u);
        if (p_.b > p_.a && random_draws::load(out, i) >= p_.b) random_draws::step_down(out, i);
      } else {
        // Section 8: mean + scale * z, z a standard normal deviate.
        random_draws::store(out, i, p_.a + p_.b * random_draws::standard_normal(source, index));
      }
    }
  }

 private:
  Law law_;
  LawParameters p_;
  bool has_seed_;
  float seed_;
  DType type_;
  bool like_;
  Shape shape_;
};

// The float attribute `name`, which must be finite (a non-finite bound or scale would make every
// value NaN or infinite).
double finite_attribute(const NodeInfo& node, const char* name, float fallback) {
  const float v = node.get_float(name, fallback);
  if (!std::isfinite(v)) node.fail_invalid(std::string(name) + " must be finite");
  return v;
}

std::unique_ptr<OpKernel> make_random(const NodeInfo& node, Law law, bool like) {
  LawParameters p;
  if (law == Law::Uniform) {
    p.a = finite_attribute(node, "low", 0.0f);
    p.b = finite_attribute(node, "high", 1.0f);
  } else {
    p.a = finite_attribute(node, "mean", 0.0f);
    p.b = finite_attribute(node, "scale", 1.0f);
  }
  const bool has_seed = node.has("seed");
  const float seed = node.get_float("seed", 0.0f);
  Shape shape;
  DType type = DType::F32;
  if (like) {
    // Without dtype the type is the input's, known in infer; String stands for "not fixed yet"
    // (no random operator produces strings).
    type = node.has("dtype") ? random_draws::float_output_type(node, DType::F32, true) : DType::String;
  } else {
    if (!node.has("shape")) node.fail_invalid("the attribute `shape` is required");
    const std::vector<std::int64_t> dims = node.get_ints("shape", {});
    for (std::int64_t d : dims) {
      if (d < 0) node.fail_invalid("shape has a negative extent " + std::to_string(d));
    }
    try {
      shape = Shape(std::span<const std::int64_t>(dims));
    } catch (const TensorError& e) {
      node.fail_invalid(std::string("shape: ") + e.what());
    }
    type = random_draws::float_output_type(node, DType::F32, true);
  }
  return std::make_unique<RandomValues>(law, p, has_seed, seed, type, like, std::move(shape));
}

}  // namespace

std::unique_ptr<OpKernel> make_random_uniform(const NodeInfo& node) { return make_random(node, Law::Uniform, false); }
std::unique_ptr<OpKernel> make_random_normal(const NodeInfo& node) { return make_random(node, Law::Normal, false); }
std::unique_ptr<OpKernel> make_random_uniform_like(const NodeInfo& node) { return make_random(node, Law::Uniform, true); }
std::unique_ptr<OpKernel> make_random_normal_like(const NodeInfo& node) { return make_random(node, Law::Normal, true); }

}  // namespace onemodel
