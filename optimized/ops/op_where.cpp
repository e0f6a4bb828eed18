// Where (spec/ops/elementwise.md section 5): condition ? x : y with the three inputs broadcast,
// as rows of optimized/ops/broadcast_walk.hpp instead of the reference's three broadcast copies.
// Each element is stored as the reference stores it, E::store(E::load(chosen)) of the reference's
// element tags (the canonical NaN for float types, the value itself otherwise); float32 selects
// then stores canonical with the vectorized Clip to [-inf, +inf] (no comparison holds, NaN
// becomes 0x7FC00000), the same bits. Same result in both modes on every path. Strided views run
// the reference.
#include <limits>
#include <memory>
#include <type_traits>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/broadcast_walk.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel::opt {
namespace {

namespace oe = ::onemodel::ew;  // the reference's element tags (not opt::ew, the kernels)

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr ew::UnaryArgs kKeep{ew::UnaryOp::Clip, -kInf, kInf};

class WhereOverride final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  void run(RunContext& context) const override {
    const Tensor& c = context.input(0);
    const Tensor& x = context.input(1);
    const Tensor& y = context.input(2);
    const Tensor& out = context.output(0);
    if (c.dtype() != DType::Bool || x.dtype() != y.dtype() || out.dtype() != x.dtype() || x.dtype() == DType::String || !c.is_contiguous() ||
        !x.is_contiguous() || !y.is_contiguous()) {
      return run_reference(context);
    }
    const Shape* shapes[] = {&c.shape(), &x.shape(), &y.shape()};
    BroadcastWalk w;
    if (!plan_broadcast(out.shape(), shapes, 3, w)) return run_reference(context);
    if (out.element_count() == 0) return;
    const auto* cond = reinterpret_cast<const std::uint8_t*>(tensor_bytes(c).data());
    const std::byte* xb = tensor_bytes(x).data();
    const std::byte* yb = tensor_bytes(y).data();
    std::byte* ob = mutable_tensor_bytes(out).data();
    const Isa isa = config().isa;
    oe::dispatch(x.dtype(), oe::StoredTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      const S* xs = reinterpret_cast<const S*>(xb);
      const S* ys = reinterpret_cast<const S*>(yb);
      S* o = reinterpret_cast<S*>(ob);
      const std::int64_t sc = w.inner_stride(0), sx = w.inner_stride(1), sy = w.inner_stride(2);
      for_each_run(kernel_context(context), w, 1.0, [&](std::size_t at, const auto& offsets, std::size_t n) {
        const std::int64_t step_c = sc, step_x = sx, step_y = sy;  // locals: stores could alias captures
        const std::uint8_t* cr = cond + offsets[0];
        const S* xr = xs + offsets[1];
        const S* yr = ys + offsets[2];
        S* orow = o + at;
        // The row with its strides as constants where they are the common 1 and 0 (same shapes;
        // a scalar on both branches, Swin's mask), so the compiler vectorizes those loops.
        auto select = [&](auto kc, auto kx, auto ky) {
          if constexpr (std::is_same_v<E, oe::F32>) {
            for (std::size_t i = 0; i < n; ++i) {
              const auto j = static_cast<std::int64_t>(i);
              orow[i] = cr[j * kc] != 0 ? xr[j * kx] : yr[j * ky];
            }
            ew::unary_f32_run(isa, kKeep, orow, orow, n);  // in place: each element read before written
          } else {
            for (std::size_t i = 0; i < n; ++i) {
              const auto j = static_cast<std::int64_t>(i);
              orow[i] = E::store(E::load(cr[j * kc] != 0 ? xr[j * kx] : yr[j * ky]));
            }
          }
        };
        using One = std::integral_constant<std::int64_t, 1>;
        using Zero = std::integral_constant<std::int64_t, 0>;
        if (step_c == 1 && step_x == 1 && step_y == 1) {
          select(One{}, One{}, One{});
        } else if (step_c == 1 && step_x == 0 && step_y == 0) {
          select(One{}, Zero{}, Zero{});
        } else {
          select(step_c, step_x, step_y);
        }
      });
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_where(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<WhereOverride>(node, config);
}

}  // namespace onemodel::opt
