// The one product-sum step shared by MatMul, Gemm, Conv, ConvTranspose, MatMulInteger and
// ConvInteger (spec/ops/products-conv.md section 2, from exact-mode.md "Matrix product" and
// "Convolution"): one accumulator per output, started at +0, each term a separately rounded
// product added with a separately rounded sum, terms in increasing index order. The callers write
// their loops literally around this step. The reference engine's fast mode uses the same code
// (kernels-gemm.md "Fast mode" keeps the order; fusing is allowed there, not required).
#pragma once

#include <type_traits>

#include "reference/ops/integer_wrap.hpp"

namespace onemodel::products {

// acc + round(a * b), never fused (-ffp-contract=off is set for the whole build; the product is
// also named so it is rounded on its own). Integers wrap (spec/ops/products-conv.md section 2).
template <class V>
inline V product_step(V acc, V a, V b) noexcept {
  if constexpr (std::is_floating_point_v<V>) {
    const V prod = a * b;
    return acc + prod;
  } else {
    return ew::wrap_add(acc, ew::wrap_mul(a, b));
  }
}

// The accumulator's start: +0 for floats (exact-mode.md rule 3), 0 for integers.
template <class V>
inline V accumulator_start() noexcept {
  return V{0};
}

}  // namespace onemodel::products
