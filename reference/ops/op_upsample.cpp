// Upsample (opsets 7 to 10; deprecated in 10), float32 (spec/ops/products-conv.md section 10.5):
// Resize with asymmetric coordinates and nearest mode floor, modes nearest and linear (also
// spelled bilinear). Upsample_7 (7, 8) takes the scales attribute, Upsample_9 (9, 10) the scales
// input. Output size floor(in * scale).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/resize_core.hpp"

namespace onemodel {
namespace {

class Upsample final : public OpKernel {
 public:
  Upsample(const NodeInfo& node, bool scales_attribute) : scales_attribute_(scales_attribute) {
    const std::string mode = node.get_string("mode", "nearest");
    if (mode == "nearest") options_.mode = resize::Mode::Nearest;
    else if (mode == "linear" || mode == "bilinear") options_.mode = resize::Mode::Linear;
    else node.fail_invalid("mode '" + mode + "' is not handled");
    options_.coordinate = "asymmetric";
    options_.nearest = "floor";
    if (scales_attribute) {
      scales_ = node.get_floats("scales");
      if (scales_.empty()) node.fail_invalid("attribute 'scales' is required");
    }
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    std::vector<float> scales = scales_;
    if (!scales_attribute_) {
      const Tensor* t = context.input_value(1);
      if (t == nullptr) {
        context.require_runtime_values();
        return;
      }
      scales = read(context.node(), *t);
    }
    std::vector<std::int64_t> out;
    for (const auto& p : plan(context.node(), context.input_shape(0), scales)) out.push_back(p.out);
    context.set_output(0, DType::F32, Shape(std::span<const std::int64_t>(out)));
  }
  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const std::vector<float> scales = scales_attribute_ ? scales_ : read(context.node(), context.input(1));
    const auto y = resize::resample(options_, x_t.to_vector<float>(), x_t.shape(), plan(context.node(), x_t.shape(), scales));
    auto out = context.output(0).mutable_data<float>();
    for (std::size_t i = 0; i < y.size(); ++i) out[i] = y[i];
  }

 private:
  static std::vector<float> read(const NodeInfo& node, const Tensor& t) {
    if (t.dtype() != DType::F32) node.fail_invalid("scales must be float32");
    return t.to_vector<float>();
  }
  static std::vector<resize::AxisPlan> plan(const NodeInfo& node, const Shape& x, const std::vector<float>& scales) {
    if (static_cast<int>(scales.size()) != x.rank()) node.fail_invalid("scales must have one entry per axis");
    std::vector<resize::AxisPlan> plans(scales.size());
    for (int a = 0; a < x.rank(); ++a) {
      resize::AxisPlan& p = plans[static_cast<std::size_t>(a)];
      p.in = x[a];
      p.scale = scales[static_cast<std::size_t>(a)];
      p.out = resize::scaled_size(node, p.in, p.scale);
    }
    return plans;
  }

  bool scales_attribute_;
  resize::Options options_;
  std::vector<float> scales_;
};

}  // namespace

std::unique_ptr<OpKernel> make_upsample_7(const NodeInfo& node) { return std::make_unique<Upsample>(node, true); }
std::unique_ptr<OpKernel> make_upsample_9(const NodeInfo& node) { return std::make_unique<Upsample>(node, false); }

}  // namespace onemodel
