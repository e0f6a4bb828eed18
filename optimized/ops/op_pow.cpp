// Pow with a float32 base and a one-element exponent (spec/ops/elementwise.md section 3, Pow; the
// project's rule, spec/exact-transcendentals.md section 10, in both modes). The exponent is taken
// as a double exactly as the reference takes it (static_cast<double> of the loaded value, so i64
// and u64 round to nearest). Section 10.2 step 4 makes exponents 1, 2 and 3 the float32 products
// x, x*x and (x*x)*x; steps 1-3 agree with them (y is not 0; x == 1 gives 1; NaN stays NaN), so
// 2 and 3 run on the vectorized Mul kernel, whose products are the reference's Mul bits (T5's and
// Swin's x^2 before a mean).
// Every other exponent calls exact::pow per element, as the reference does, without its
// broadcast copies. NaN is stored canonical (oe::store_f32) as the reference stores it. Any
// other base type, an exponent with more than one element or a strided view runs the reference.
#include <limits>
#include <memory>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/math/exact_pow.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel::opt {
namespace {

namespace oe = ::onemodel::ew;  // the reference's element tags (not opt::ew, the kernels)

// Elements per piece of the parallel loop: products are cheap, exact::pow is not.
constexpr std::size_t kProductPiece = 32 * 1024;
constexpr std::size_t kPowPiece = 4 * 1024;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr ew::UnaryArgs kKeep{ew::UnaryOp::Clip, -kInf, kInf};
constexpr std::size_t kBlock = 1024;  // floats of the stack block of y = 3

// The reference's ExponentTypes (reference/ops/op_pow.cpp).
using ExponentTypes = oe::Types<oe::F32, oe::F64, oe::I32, oe::I64, oe::U32, oe::U64>;

bool exponent_type_served(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::I32 || t == DType::I64 || t == DType::U32 ||
         t == DType::U64;
}

class PowOverride final : public OptimizedKernel {
 public:
  using OptimizedKernel::OptimizedKernel;

  void run(RunContext& context) const override {
    const Tensor& base = context.input(0);
    const Tensor& exponent = context.input(1);
    const Tensor& out = context.output(0);
    if (base.dtype() != DType::F32 || out.dtype() != DType::F32 || !base.is_contiguous() ||
        exponent.element_count() != 1 || !exponent_type_served(exponent.dtype()) ||
        out.element_count() != base.element_count()) {
      return run_reference(context);
    }
    double y = 0.0;
    const Tensor e = exponent.contiguous();
    oe::dispatch(e.dtype(), ExponentTypes{}, [&](auto tag) {
      using X = decltype(tag);
      y = static_cast<double>(X::load(e.data<typename X::storage>()[0]));
    });
    const auto count = static_cast<std::size_t>(out.element_count());
    if (count == 0) return;
    const float* x = base.data<float>().data();
    float* o = out.mutable_data<float>().data();
    const Isa isa = config().isa;
    const bool product = y == 1.0 || y == 2.0 || y == 3.0;
    const std::size_t piece_elements = product ? kProductPiece : kPowPiece;
    const std::size_t pieces = (count + piece_elements - 1) / piece_elements;
    const double ns = (product ? 0.3 : 20.0) * static_cast<double>(count);
    kernel_context(context).parallel_for(pieces, ns, [&](std::size_t piece) {
      const std::size_t lo = piece * piece_elements;
      const std::size_t hi = lo + piece_elements < count ? lo + piece_elements : count;
      if (y == 2.0) {
        // The Mul kernel's x * x, stored canonical: Mul's bits (optimized/kernels/elementwise).
        ew::binary_f32_run(isa, ew::BinaryOp::Mul, x + lo, 1, x + lo, 1, o + lo, hi - lo);
      } else if (y == 3.0) {
        // (x * x) * x through a stack block: the kernel's output must not overlap its inputs. The
        // canonical NaN of x * x is still NaN in the second product, which stores it canonical.
        float square[kBlock];
        for (std::size_t b = lo; b < hi; b += kBlock) {
          const std::size_t n = hi - b < kBlock ? hi - b : kBlock;
          ew::binary_f32_run(isa, ew::BinaryOp::Mul, x + b, 1, x + b, 1, square, n);
          ew::binary_f32_run(isa, ew::BinaryOp::Mul, square, 1, x + b, 1, o + b, n);
        }
      } else if (y == 1.0) {
        // x stored canonical: the Clip to [-inf, +inf] of the elementwise kernels.
        ew::unary_f32_run(isa, kKeep, x + lo, o + lo, hi - lo);
      } else {
        for (std::size_t i = lo; i < hi; ++i) o[i] = oe::store_f32(exact::pow(x[i], y));
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_pow(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<PowOverride>(node, config);
}

}  // namespace onemodel::opt
