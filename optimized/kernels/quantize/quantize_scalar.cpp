// The scalar path of the quantization kernels (quantize.hpp), and the tails of the vector paths:
// the reference kernel's own arithmetic (reference/ops/op_quantize_linear.cpp) with its helpers
// (reference/ops/quant_rounding.hpp): a binary32 division, round half to even in double, the zero
// point added in double, saturation with NaN to the type's smallest value. Also the family's
// dispatch, from its registry list (quantize_list.inc).
#include "optimized/kernels/quantize/quantize.hpp"
#include "optimized/frame/kernel_registry.hpp"
#include "reference/ops/quant_rounding.hpp"

namespace onemodel::opt::quantize {
namespace {

quant::Range range_of(Out out) noexcept {
  switch (out) {
    case Out::U8: return {0, 255};
    case Out::I8: return {-128, 127};
    case Out::U16: return {0, 65535};
    default: return {-32768, 32767};
  }
}

template <class T>
void quantize_as(const Run& r, quant::Range range) noexcept {
  T* y = static_cast<T*>(r.y);
  for (std::size_t i = 0; i < r.n; ++i) {
    const std::size_t k = r.per_lane ? i : 0;
    const float q = r.x[i] / r.scale[k];
    const double v = quant::round_half_even(static_cast<double>(q)) + static_cast<double>(r.zero_point[k]);
    y[i] = static_cast<T>(quant::saturate(v, range));
  }
}

}  // namespace

void quantize_run__scalar(const Run& run) noexcept {
  const quant::Range range = range_of(run.out);
  switch (run.out) {
    case Out::U8: quantize_as<std::uint8_t>(run, range); break;
    case Out::I8: quantize_as<std::int8_t>(run, range); break;
    case Out::U16: quantize_as<std::uint16_t>(run, range); break;
    case Out::I16: quantize_as<std::int16_t>(run, range); break;
  }
}

// Section 6, step 1, as the reference loop: std::min(lo, v) keeps lo unless v < lo, a NaN v is
// skipped (its comparisons are false).
MinMax min_max__scalar(const float* x, std::size_t n) noexcept {
  MinMax m;
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] < m.lo) m.lo = x[i];
    if (x[i] > m.hi) m.hi = x[i];
  }
  return m;
}

namespace {

// The registry table, from the list (quantize_list.inc).
constexpr Variant kVariants[] = {
#define ONEMODEL_QUANTIZE_VARIANT(suffix, isa, name) \
  Variant{name, Isa::isa, quantize_run__##suffix, min_max__##suffix},
#include "optimized/kernels/quantize/quantize_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const Variant& variant_for(Isa isa) noexcept {
  static const VariantChoice<Variant> choice{std::span<const Variant>(kVariants)};
  return choice[isa];
}

}  // namespace

std::span<const Variant> variants() noexcept { return kVariants; }

void quantize_run(Isa isa, const Run& run) noexcept { variant_for(isa).run(run); }

MinMax min_max(Isa isa, const float* x, std::size_t n) noexcept { return variant_for(isa).min_max(x, n); }

}  // namespace onemodel::opt::quantize
