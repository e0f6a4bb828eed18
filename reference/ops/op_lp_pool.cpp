// LpPool (opsets 2, 11, 18, 22; later opsets only added attributes or types whose defaults give
// the earlier behaviour), float32 and float64 (spec/ops/products-conv.md section 8.5, from the ONNX
// LpPool text): the Lp norm of each window, y = (sum |x|^p)^(1/p). The taps inside the input are
// visited in depth, height, width order; each |x|^p is the exact Pow (spec/exact-transcendentals.md
// section 10; p = 1, 2, 3 are the products x, x*x, (x*x)*x), summed from +0 in that order; the sum
// is raised to 1/p (the double 1.0 / p) by the exact Pow. Padding contributes |0|^p = 0, so
// skipping it changes nothing. Exact in both types; NaN stored canonical.
#include <cmath>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_pow.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/pool_window.hpp"

namespace onemodel {
namespace {

class LpPool final : public OpKernel {
 public:
  explicit LpPool(const NodeInfo& node)
      : window_(conv_geometry::read_window_attributes(node, true)), p_(node.get_int("p", 2)) {
    // ONNX gives no range; a norm needs p >= 1 (p = 0 would raise the sum to 1/0).
    if (p_ < 1) node.fail_invalid("p = " + std::to_string(p_) + " is not a positive norm order");
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    const auto g = pooling::pool_geometry(context.node(), window_, x);
    context.set_output(0, context.input_type(0), conv_geometry::output_shape(context.node(), x, g.c, g.axes));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  template <class T>
  void run_typed(const RunContext& context) const {
    const Tensor& x_t = context.input(0);
    const auto g = pooling::pool_geometry(context.node(), window_, x_t.shape());
    const auto x = x_t.to_vector<T>();
    auto y = context.output(0).mutable_data<T>();
    const double p = static_cast<double>(p_);
    const double inverse = 1.0 / p;
    const std::int64_t in_plane = g.in_plane();
    const std::int64_t ih = g.axes[1].in, iw = g.axes[2].in;
    std::size_t o = 0;
    for (std::int64_t plane = 0; plane < g.n * g.c; ++plane) {
      for (std::int64_t od = 0; od < g.axes[0].out; ++od) {
        for (std::int64_t oy = 0; oy < g.axes[1].out; ++oy) {
          for (std::int64_t ox = 0; ox < g.axes[2].out; ++ox, ++o) {
            T sum = T{0};
            pooling::for_each_inside_tap(g, od, oy, ox, [&](std::int64_t d, std::int64_t h, std::int64_t w) {
              const T v = x[static_cast<std::size_t>(plane * in_plane + (d * ih + h) * iw + w)];
              sum = sum + exact::pow(std::fabs(v), p);
            });
            y[o] = norms::store(exact::pow(sum, inverse));
          }
        }
      }
    }
  }

  conv_geometry::WindowAttributes window_;
  std::int64_t p_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lp_pool(const NodeInfo& node) { return std::make_unique<LpPool>(node); }

}  // namespace onemodel
