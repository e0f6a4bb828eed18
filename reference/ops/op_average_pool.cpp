// AveragePool (opsets 1, 7, 10, 11, 19, 22; later opsets only add attributes whose defaults give
// the earlier behaviour), float32 and float64 (spec/ops/products-conv.md section 8.3, from ops-conv.md
// "Pooling"): the taps inside the input summed in depth, height, width order from +0, divided (not
// multiplied by a reciprocal) by the number of inside taps, or with count_include_pad by the taps
// inside the input or its declared padding (never the ceil_mode overhang). A window with nothing to
// count gives 0 / 0, NaN, stored canonical. float64 follows the same steps in binary64 (the divisor
// converted exactly): exact.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/pool_window.hpp"

namespace onemodel {
namespace {

class AveragePool final : public OpKernel {
 public:
  explicit AveragePool(const NodeInfo& node)
      : window_(conv_geometry::read_window_attributes(node, true)),
        count_include_pad_(node.get_int("count_include_pad", 0) != 0) {}
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
    const std::int64_t in_plane = g.in_plane();
    const std::int64_t ih = g.axes[1].in, iw = g.axes[2].in;
    std::size_t o = 0;
    for (std::int64_t plane = 0; plane < g.n * g.c; ++plane) {
      for (std::int64_t od = 0; od < g.axes[0].out; ++od) {
        for (std::int64_t oy = 0; oy < g.axes[1].out; ++oy) {
          for (std::int64_t ox = 0; ox < g.axes[2].out; ++ox, ++o) {
            T sum = T{0};
            std::int64_t inside = 0;
            pooling::for_each_inside_tap(g, od, oy, ox, [&](std::int64_t d, std::int64_t h, std::int64_t w) {
              sum = sum + x[static_cast<std::size_t>(plane * in_plane + (d * ih + h) * iw + w)];
              ++inside;
            });
            std::int64_t divisor = inside;
            if (count_include_pad_) {
              divisor = pooling::taps_within_padding(g.axes[0], od) * pooling::taps_within_padding(g.axes[1], oy) *
                        pooling::taps_within_padding(g.axes[2], ox);
            }
            y[o] = norms::store(sum / static_cast<T>(divisor));
          }
        }
      }
    }
  }

  conv_geometry::WindowAttributes window_;
  bool count_include_pad_;
};

}  // namespace

std::unique_ptr<OpKernel> make_average_pool(const NodeInfo& node) { return std::make_unique<AveragePool>(node); }

}  // namespace onemodel
