// QuantizeLinear's element rule on float32 (spec/ops/quantization.md sections 1 and 4, int8.md
// "Operators"): y = saturate(round_half_even(x / scale) + zero_point) with one binary32 division,
// NaN giving the smallest value of the output type; and the NaN-skipping min/max of
// DynamicQuantizeLinear (section 6, step 1). Every path gives the reference kernel's bits
// (reference/ops/op_quantize_linear.cpp, op_dynamic_quantize_linear.cpp): the operations are
// element-wise and exact apart from the one division, which IEEE rounds the same on every path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/frame/isa.hpp"

namespace onemodel::opt::quantize {

// The stored output types (section 1 ranges): uint8, int8, uint16, int16.
enum class Out : std::uint8_t { U8, I8, U16, I16 };

// One run of elements sharing how they find their scale: `scale` and `zero_point` hold either one
// value for the whole run (per_lane false) or one per element (per_lane true, the per-axis case
// where the axis is the last one). Zero points are integers held as floats (|zp| <= 65535: exact).
struct Run {
  const float* x = nullptr;
  void* y = nullptr;  // element 0 of the run in the output's type
  std::size_t n = 0;
  const float* scale = nullptr;
  const float* zero_point = nullptr;
  bool per_lane = false;
  Out out = Out::U8;
};

// x's min and max with 0 (lo = min(0, min x), hi = max(0, max x)), NaN elements skipped, each
// replaced only by a strictly smaller (larger) value as std::min/std::max do: never -0.
struct MinMax {
  float lo = 0.0f;
  float hi = 0.0f;
};

// Quantizes one run on `isa`'s path (a path this build lacks runs the scalar loop).
void quantize_run(Isa isa, const Run& run) noexcept;
// MinMax of n elements on `isa`'s path.
MinMax min_max(Isa isa, const float* x, std::size_t n) noexcept;

// The per-path variants (file name = function name, DESIGN.md rule 5).
void quantize_run__scalar(const Run& run) noexcept;
MinMax min_max__scalar(const float* x, std::size_t n) noexcept;
#if defined(__x86_64__)
void quantize_run__sse(const Run& run) noexcept;
MinMax min_max__sse(const float* x, std::size_t n) noexcept;
void quantize_run__avx2(const Run& run) noexcept;
MinMax min_max__avx2(const float* x, std::size_t n) noexcept;
void quantize_run__avx512(const Run& run) noexcept;
MinMax min_max__avx512(const float* x, std::size_t n) noexcept;
#endif
#if defined(__aarch64__)
void quantize_run__neon(const Run& run) noexcept;
MinMax min_max__neon(const float* x, std::size_t n) noexcept;
#endif
#if defined(__wasm_simd128__)
void quantize_run__wasm(const Run& run) noexcept;
MinMax min_max__wasm(const float* x, std::size_t n) noexcept;
#endif
// (No inline function here: this header is included by files compiled with AVX flags, whose copy
// of an inline function the linker could pick for every caller.)

}  // namespace onemodel::opt::quantize
