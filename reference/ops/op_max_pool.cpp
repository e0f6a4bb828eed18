// MaxPool (opsets 1, 8, 10, 11, 12, 22; later opsets only add attributes, whose defaults give the
// earlier behaviour) (spec/ops/products-conv.md section 8.2, from ops-conv.md "Pooling"). Types
// f32, f64, f16, int8, uint8. Only taps inside the input compete; the first tap that is not NaN
// starts the maximum, a later one replaces it only when strictly greater (the first of equal taps
// wins and gives the index); NaN taps are ignored unless every inside tap is NaN (IEEE maxNum). A
// window with no inside tap gives the type's lowest value and index -1. The optional Indices output
// is the flat position in the whole input, storage_order 1 flattening each plane with the first
// spatial axis fastest.
#include <limits>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/pool_window.hpp"

namespace onemodel {
namespace {

using MaxPoolTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::I8, ew::U8>;

class MaxPool final : public OpKernel {
 public:
  explicit MaxPool(const NodeInfo& node)
      : window_(conv_geometry::read_window_attributes(node, true)), storage_order_(node.get_int("storage_order", 0)) {
    if (storage_order_ != 0 && storage_order_ != 1) node.fail_invalid("storage_order must be 0 or 1");
  }
  void infer(InferContext& context) const override {
    ew::require(context, 0, MaxPoolTypes{});
    const Shape& x = context.input_shape(0);
    const auto g = pooling::pool_geometry(context.node(), window_, x);
    const Shape out = conv_geometry::output_shape(context.node(), x, g.c, g.axes);
    context.set_output(0, context.input_type(0), out);
    if (context.output_wanted(1)) context.set_output(1, DType::I64, out);
  }
  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const auto g = pooling::pool_geometry(context.node(), window_, x_t.shape());
    const bool want_indices = context.output_wanted(1);
    ew::dispatch(x_t.dtype(), MaxPoolTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      const auto x = x_t.to_vector<typename E::storage>();
      auto y = context.output(0).mutable_data<typename E::storage>();
      std::span<std::int64_t> indices;
      if (want_indices) indices = context.output(1).mutable_data<std::int64_t>();
      const std::int64_t in_plane = g.in_plane();
      const cg_axes axes{g.axes[0].in, g.axes[1].in, g.axes[2].in};
      std::size_t o = 0;
      for (std::int64_t plane = 0; plane < g.n * g.c; ++plane) {
        for (std::int64_t od = 0; od < g.axes[0].out; ++od) {
          for (std::int64_t oy = 0; oy < g.axes[1].out; ++oy) {
            for (std::int64_t ox = 0; ox < g.axes[2].out; ++ox, ++o) {
              bool started = false;
              bool saw_nan = false;
              V best{};
              std::int64_t best_d = -1, best_h = 0, best_w = 0;
              std::int64_t nan_d = -1, nan_h = 0, nan_w = 0;
              pooling::for_each_inside_tap(g, od, oy, ox, [&](std::int64_t d, std::int64_t h, std::int64_t w) {
                const V v = E::load(x[static_cast<std::size_t>(plane * in_plane + (d * axes.h + h) * axes.w + w)]);
                if constexpr (std::is_floating_point_v<V>) {
                  if (v != v) {
                    if (!saw_nan) {
                      saw_nan = true;
                      nan_d = d, nan_h = h, nan_w = w;
                    }
                    return;
                  }
                }
                if (!started || v > best) {
                  started = true;
                  best = v;
                  best_d = d, best_h = h, best_w = w;
                }
              });
              if (!started && saw_nan) {
                // Every inside tap is NaN: the result is NaN, the first NaN gives the index.
                best = std::numeric_limits<V>::quiet_NaN();
                best_d = nan_d, best_h = nan_h, best_w = nan_w;
                started = true;
              }
              if (!started) best = ew::finite_lowest<E>();
              y[o] = E::store(best);
              if (want_indices) {
                std::int64_t index = -1;
                if (best_d >= 0) {
                  const std::int64_t within = storage_order_ == 0 ? (best_d * axes.h + best_h) * axes.w + best_w
                                                                  : best_d + axes.d * (best_h + axes.h * best_w);
                  index = plane * in_plane + within;
                }
                indices[o] = index;
              }
            }
          }
        }
      }
    });
  }

 private:
  struct cg_axes {
    std::int64_t d, h, w;
  };
  conv_geometry::WindowAttributes window_;
  std::int64_t storage_order_;
};

}  // namespace

std::unique_ptr<OpKernel> make_max_pool(const NodeInfo& node) { return std::make_unique<MaxPool>(node); }

}  // namespace onemodel
