// Bulk conversions between binary32 and the 16-bit storage types for the half-precision adapter
// of the optimized engine (spec/half-precision.md sections 2-6 and 8). Every path computes the
// integer rules of sections 2-5, so its bits equal the scalar functions of onemodel/half.hpp for
// every input (tests/kernels/halfconv_test.cpp compares them over every 16-bit pattern and
// millions of binary32 patterns); a path is only faster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "optimized/frame/isa.hpp"


namespace onemodel::opt {

// The vector variants (file name = function name, DESIGN.md rule 5); the dispatch with the
// scalar path is optimized/runtime/half_conversions.cpp. widen: out[i] = in[i] widened, for
// binary16 (bfloat16 = false) or bfloat16 bits; narrow: in[i] rounded to nearest even.
#if defined(__x86_64__)
void widen_16_to_f32__avx2(const std::uint16_t* in, float* out, std::size_t n, bool bfloat16);
void narrow_f32_to_16__avx2(const float* in, std::uint16_t* out, std::size_t n, bool bfloat16);
#endif


using WidenFn = void (*)(const std::uint16_t* in, float* out, std::size_t n, bool bfloat16);
using NarrowFn = void (*)(const float* in, std::uint16_t* out, std::size_t n, bool bfloat16);

// One variant of the family (kernel_registry.hpp; docs/design.md, "Kernel registry"). The list,
// with the scalar variant (onemodel/half.hpp's functions), is in
// optimized/runtime/half_conversions.cpp, which dispatches: halfconv_variants() there.
struct HalfconvVariant {
  std::string_view name;
  Isa isa;
  WidenFn widen;
  NarrowFn narrow;
};

}  // namespace onemodel::opt
