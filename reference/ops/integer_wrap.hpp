// Two's-complement wrap-around for integer Add, Sub, Mul, Neg, Abs (spec/ops/elementwise.md
// section 4): the operation is done in an unsigned type at least as wide as unsigned int, where
// C++ defines it modulo 2^n, and converted back (modular since C++20). This avoids both signed
// overflow and the promotion of narrow unsigned types to int.
#pragma once

#include <cstdint>
#include <type_traits>

namespace onemodel::ew {

template <class V>
using WrapType = std::conditional_t<(sizeof(V) < sizeof(unsigned)), unsigned, std::make_unsigned_t<V>>;

template <class V>
V wrap_add(V a, V b) noexcept {
  return static_cast<V>(static_cast<WrapType<V>>(a) + static_cast<WrapType<V>>(b));
}
template <class V>
V wrap_sub(V a, V b) noexcept {
  return static_cast<V>(static_cast<WrapType<V>>(a) - static_cast<WrapType<V>>(b));
}
template <class V>
V wrap_mul(V a, V b) noexcept {
  return static_cast<V>(static_cast<WrapType<V>>(a) * static_cast<WrapType<V>>(b));
}
template <class V>
V wrap_neg(V a) noexcept {
  return static_cast<V>(WrapType<V>{0} - static_cast<WrapType<V>>(a));
}

}  // namespace onemodel::ew
