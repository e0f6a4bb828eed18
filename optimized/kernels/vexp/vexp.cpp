// Dispatch of the vectorized exponentials to the path's variant, read from the family's registry
// list (vexp_list.inc, vexp_variants.hpp; kernel_registry.hpp).
#include "optimized/kernels/vexp/vexp.hpp"

#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"

namespace onemodel::opt {
namespace {

// The registry table, from the list (vexp_list.inc).
constexpr VexpVariant kVariants[] = {
#define ONEMODEL_VEXP_VARIANT(ns, isa, name) \
  VexpVariant{name, Isa::isa, ns::exp_non_positive_f32, ns::fast_exp_f32},
#include "optimized/kernels/vexp/vexp_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const VexpVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<VexpVariant> choice{std::span<const VexpVariant>(kVariants)};
  return choice[isa];
}

}  // namespace

std::span<const VexpVariant> vexp_variants() noexcept { return kVariants; }

void exp_non_positive_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept {
  variant_for(isa).exp_non_positive(x, y, n);
}

void fast_exp_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept { variant_for(isa).fast_exp(x, y, n); }

}  // namespace onemodel::opt
