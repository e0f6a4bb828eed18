// Window generators (spec/ops/spectral.md section 3).
#include "reference/ops/spectral_window.hpp"

#include <string>

#include "core/graph/node_info.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/spectral_inputs.hpp"

namespace onemodel {
namespace {

using WindowTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>;

class SpectralWindow final : public OpKernel {
 public:
  SpectralWindow(const NodeInfo& node, spectral::WindowKind kind)
      : kind_(kind), type_(spectral::output_datatype(node)), periodic_(node.get_int("periodic", 1) != 0) {
    const std::int64_t periodic = node.get_int("periodic", 1);
    if (periodic != 0 && periodic != 1) node.fail_invalid("periodic must be 0 or 1, got " + std::to_string(periodic));
  }

  void infer(InferContext& context) const override {
    const Tensor* size = shape_ops::value_or_defer(context, 0);
    if (size == nullptr) return;
    context.set_output(0, type_, Shape{read_size(context.node(), *size)});
  }

  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    const std::int64_t size = read_size(context.node(), context.input(0));
    ew::dispatch(type_, WindowTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      auto o = out.mutable_data<typename E::storage>();
      for (std::int64_t n = 0; n < size; ++n) {
        o[static_cast<std::size_t>(n)] = E::store(static_cast<V>(spectral::window_value(kind_, n, size, periodic_)));
      }
    });
  }

 private:
  static std::int64_t read_size(const NodeInfo& node, const Tensor& t) {
    if (t.element_count() != 1) node.fail_invalid("size must be a scalar, got shape " + t.shape().to_string());
    const std::vector<std::int64_t> v = shape_ops::read_ints(node, t, "size");
    if (v[0] < 0) node.fail_invalid("size " + std::to_string(v[0]) + " is negative");
    if (v[0] > kMaxElements) node.fail_unsupported("size " + std::to_string(v[0]) + " beyond the library's limits");
    return v[0];
  }

  spectral::WindowKind kind_;
  DType type_;
  bool periodic_;
};

}  // namespace

std::unique_ptr<OpKernel> make_spectral_window(const NodeInfo& node, spectral::WindowKind kind) {
  return std::make_unique<SpectralWindow>(node, kind);
}

}  // namespace onemodel
