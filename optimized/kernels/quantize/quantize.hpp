// QuantizeLinear's element rule on float32 (spec/ops/quantization.md sections 1 and 4, int8.md
// "Operators"): y = saturate(round_half_even(x / scale) + zero_point) with one binary32 division,
// NaN giving the smallest value of the output type; and the NaN-skipping min/max of
// DynamicQuantizeLinear (section 6, step 1). Every path gives the reference kernel's bits
// (reference/ops/op_quantize_linear.cpp, op_dynamic_quantize_linear.cpp): the operations are
// element-wise and exact apart from the one division, which IEEE rounds the same on every path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

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

// The per-path variants (file name = function name, DESIGN.md rule 5), from the registry list.
#define ONEMODEL_QUANTIZE_VARIANT(suffix, isa, name)              \
  void quantize_run__##suffix(const Run& run) noexcept;           \
  MinMax min_max__##suffix(const float* x, std::size_t n) noexcept;
#include "optimized/kernels/quantize/quantize_list.inc"

using RunFn = void (*)(const Run& run) noexcept;
using MinMaxFn = MinMax (*)(const float* x, std::size_t n) noexcept;

// One variant of the family (kernel_registry.hpp), from quantize_list.inc.
struct Variant {
  std::string_view name;
  Isa isa;
  RunFn run;
  MinMaxFn min_max;
};

// The registry: every variant this build has, best first, scalar last.
std::span<const Variant> variants() noexcept;
// (No inline function here: this header is included by files compiled with AVX flags, whose copy
// of an inline function the linker could pick for every caller.)

}  // namespace onemodel::opt::quantize
