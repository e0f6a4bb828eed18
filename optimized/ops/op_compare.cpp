// The comparisons and Boolean operators that build masks (spec/ops/elementwise.md section 5):
// Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor with broadcasting, and Not.
// Each output byte is the reference's: the predicate on the loaded values of the reference's
// element tags (16-bit floats widened to binary32, Bool read as byte != 0; NaN compares false,
// -0 == +0), stored as 1 or 0. The inputs are walked as rows (optimized/ops/broadcast_walk.hpp)
// instead of the reference's broadcast copies. Element types outside the reference's list and
// strided views run the reference kernel.
#include <memory>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/ops/broadcast_walk.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel::opt {
namespace {

namespace oe = ::onemodel::ew;  // the reference's element tags

// The predicates, as the reference's (reference/ops/op_equal.cpp, op_less.cpp, ...).
struct EqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept { return a == b; }
};
struct LessFn {
  template <class V>
  bool operator()(V a, V b) const noexcept { return a < b; }
};
struct GreaterFn {
  template <class V>
  bool operator()(V a, V b) const noexcept { return a > b; }
};
struct LessOrEqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept { return a <= b; }
};
struct GreaterOrEqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept { return a >= b; }
};
struct AndFn {
  bool operator()(bool a, bool b) const noexcept { return a && b; }
};
struct OrFn {
  bool operator()(bool a, bool b) const noexcept { return a || b; }
};
struct XorFn {
  bool operator()(bool a, bool b) const noexcept { return a != b; }
};

template <class List>
bool in_list(DType t, List) {
  bool found = false;
  [&]<class... Es>(oe::Types<Es...>) { found = ((Es::type == t) || ...); }(List{});
  return found;
}

template <class List, class Fn>
class CompareOverride final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  void run(RunContext& context) const override {
    const Tensor& a = context.input(0);
    const Tensor& b = context.input(1);
    const Tensor& out = context.output(0);
    if (a.dtype() != b.dtype() || out.dtype() != DType::Bool || !in_list(a.dtype(), List{}) || !a.is_contiguous() ||
        !b.is_contiguous()) {
      return run_reference(context);
    }
    const Shape* shapes[] = {&a.shape(), &b.shape()};
    BroadcastWalk w;
    if (!plan_broadcast(out.shape(), shapes, 2, w)) return run_reference(context);
    if (out.element_count() == 0) return;
    const std::byte* ab = tensor_bytes(a).data();
    const std::byte* bb = tensor_bytes(b).data();
    auto* o = reinterpret_cast<std::uint8_t*>(mutable_tensor_bytes(out).data());
    oe::dispatch(a.dtype(), List{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      const S* as = reinterpret_cast<const S*>(ab);
      const S* bs = reinterpret_cast<const S*>(bb);
      const std::int64_t sa = w.inner_stride(0), sb = w.inner_stride(1);
      const Fn fn{};
      for_each_run(kernel_context(context), w, 1.0, [&](std::size_t at, const auto& offsets, std::size_t n) {
        const std::int64_t step_a = sa, step_b = sb;  // locals: orow's byte stores could alias captures
        const S* ar = as + offsets[0];
        const S* br = bs + offsets[1];
        std::uint8_t* orow = o + at;
        if (step_a == 1 && step_b == 1) {  // the same-shape run, which the compiler vectorizes
          for (std::size_t i = 0; i < n; ++i) orow[i] = fn(E::load(ar[i]), E::load(br[i])) ? 1 : 0;
        } else if (step_a == 1 && step_b == 0) {
          const auto bv = E::load(br[0]);
          for (std::size_t i = 0; i < n; ++i) orow[i] = fn(E::load(ar[i]), bv) ? 1 : 0;
        } else {
          for (std::size_t i = 0; i < n; ++i) {
            const auto j = static_cast<std::int64_t>(i);
            orow[i] = fn(E::load(ar[j * step_a]), E::load(br[j * step_b])) ? 1 : 0;
          }
        }
      });
    });
  }
};

// Not: !x per byte (reference/ops/op_not.cpp), one contiguous run.
class NotOverride final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    const Tensor& out = context.output(0);
    if (x.dtype() != DType::Bool || out.dtype() != DType::Bool || !x.is_contiguous()) return run_reference(context);
    const auto count = static_cast<std::size_t>(out.element_count());
    if (count == 0) return;
    const auto* xs = reinterpret_cast<const std::uint8_t*>(tensor_bytes(x).data());
    auto* o = reinterpret_cast<std::uint8_t*>(mutable_tensor_bytes(out).data());
    for (std::size_t i = 0; i < count; ++i) o[i] = oe::Bool::store(!oe::Bool::load(xs[i]));  // locals only
  }
};

template <class List, class Fn>
std::unique_ptr<OpKernel> make(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<CompareOverride<List, Fn>>(node, config);
}

}  // namespace

std::unique_ptr<OpKernel> make_optimized_equal(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::NumericAndBoolTypes, EqualFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_less(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::NumericTypes, LessFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_greater(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::NumericTypes, GreaterFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_less_or_equal(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::NumericTypes, LessOrEqualFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_greater_or_equal(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::NumericTypes, GreaterOrEqualFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_and(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::BoolTypes, AndFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_or(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::BoolTypes, OrFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_xor(const NodeInfo& node, const OptimizedConfig& config) {
  return make<oe::BoolTypes, XorFn>(node, config);
}
std::unique_ptr<OpKernel> make_optimized_not(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<NotOverride>(node, config);
}

}  // namespace onemodel::opt
