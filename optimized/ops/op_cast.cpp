// Cast (spec/ops/elementwise.md section 7): every stored type to every stored type, each element
// converted by the reference's own per-element rule (reference/ops/cast_convert.hpp,
// convert_element: through double for float sources, through a 64-bit integer otherwise; NaN
// canonical, truncation and saturation to integers, nearest even to floats), so the rules are
// written once. What the override saves is the reference's copy of the whole input into a vector
// and its single thread: it converts straight from the input into the output, in pieces shared by
// the pool. Same bits as the reference in both modes on every path. A strided input view runs the
// reference.
#include <limits>
#include <memory>
#include <type_traits>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/cast_convert.hpp"
#include "reference/ops/cast_subbyte.hpp"

namespace onemodel::opt {
namespace {

namespace oe = ::onemodel::ew;  // the reference's element tags (not opt::ew, the kernels)

constexpr std::size_t kPieceElements = 32 * 1024;
constexpr double kNanosecondsPerElement = 0.5;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr ew::UnaryArgs kKeep{ew::UnaryOp::Clip, -kInf, kInf};

class CastOverride final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  void run(RunContext& context) const override {
    const Tensor& in = context.input(0);
    const Tensor& out = context.output(0);
    // STRING (spec/ops/strings.md section 1), the 8-bit floats (reference/ops/cast_float8.cpp), the
    // sub-byte types (cast_subbyte.hpp) and strided views run the reference kernel.
    if (!in.is_contiguous() || in.dtype() == DType::String || out.dtype() == DType::String ||
        dtype_is_float8(in.dtype()) || dtype_is_float8(out.dtype()) || oe::is_subbyte_cast(in.dtype(), out.dtype())) {
      return run_reference(context);
    }
    const auto count = static_cast<std::size_t>(out.element_count());
    if (count == 0) return;
    const std::byte* src = tensor_bytes(in).data();
    std::byte* dst = mutable_tensor_bytes(out).data();
    const std::size_t pieces = (count + kPieceElements - 1) / kPieceElements;
    const KernelContext kc = kernel_context(context);
    const Isa isa = config().isa;
    oe::dispatch(in.dtype(), oe::StoredTypes{}, [&](auto from_tag) {
      using From = decltype(from_tag);
      oe::dispatch(out.dtype(), oe::StoredTypes{}, [&](auto to_tag) {
        using To = decltype(to_tag);
        using S = typename From::storage;
        using D = typename To::storage;
        const S* s = reinterpret_cast<const S*>(src);
        D* d = reinterpret_cast<D*>(dst);
        kc.parallel_for(pieces, kNanosecondsPerElement * static_cast<double>(count), [&](std::size_t piece) {
          // Locals, not the captured references: a store through a byte-typed D* could alias
          // the closure, which would make the compiler reload the pointers every element.
          const std::size_t lo = piece * kPieceElements;
          const std::size_t hi = lo + kPieceElements < count ? lo + kPieceElements : count;
          const S* const s_local = s;
          D* const d_local = d;
          if constexpr (std::is_same_v<From, oe::F32> && std::is_same_v<To, oe::F32>) {
            // float32 -> float32 is the value with NaN made canonical (convert_element: through
            // double, stored by store_f32): the vectorized Clip to [-inf, +inf] of the elementwise
            // kernels is exactly that (no comparison holds, NaN stored as 0x7FC00000).
            ew::unary_f32_run(isa, kKeep, s_local + lo, d_local + lo, hi - lo);
          } else {
            for (std::size_t i = lo; i < hi; ++i) d_local[i] = oe::convert_element<To, From>(s_local[i]);
          }
        });
      });
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_cast(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<CastOverride>(node, config);
}

}  // namespace onemodel::opt
