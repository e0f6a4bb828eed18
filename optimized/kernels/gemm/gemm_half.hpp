// Operands of the float32 matrix product held as 16-bit floats (binary16 or bfloat16): compact
// weights (spec/session.md section 9, from spec-source fp16.md "Keeping binary32 weights
// compact"). They are widened value by value while the product packs them, into the strip or
// block the tile is about to use, so no binary32 copy of the whole operand is ever made. Widening
// is exact (spec/half-precision.md sections 3 and 5), and the packed floats land where the float32
// packing would put them, so a product reads exactly the floats of a binary32 operand whose values
// were rounded beforehand, in the same order: the same bits in both modes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {

enum class HalfFormat : std::uint8_t { Binary16, BFloat16 };

// A read-only matrix of 16-bit floats: element (r, c) at data[r * row_stride + c * col_stride].
struct HalfMatrixView {
  const std::uint16_t* data = nullptr;
  std::ptrdiff_t row_stride = 0;
  std::ptrdiff_t col_stride = 1;
  HalfFormat format = HalfFormat::Binary16;
  Isa isa = Isa::Scalar;  // the session's path: which widening loop packs it (same bits on all)
};

namespace gemm {

inline float float_from_bits(std::uint32_t bits) noexcept {
  float v;
  std::memcpy(&v, &bits, sizeof v);  // not std::bit_cast: emscripten's libc++ (DESIGN.md section 4)
  return v;
}

// spec/half-precision.md section 3, written without branches so loops over it vectorise. The
// same integer arithmetic as core/tensor/half.cpp (checked against it over all 65536 patterns):
// E == 0 is M * 2^-24 (an exact product: M < 2^10 and the result is a normal binary32), E == 31
// is infinity or NaN with the payload moved up 13 bits and the quiet bit forced, others rebias.
inline float widen_binary16(std::uint16_t h) noexcept {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t e = (static_cast<std::uint32_t>(h) >> 10) & 0x1Fu;
  const std::uint32_t m = static_cast<std::uint32_t>(h) & 0x3FFu;
  std::uint32_t small;
  const float sub = static_cast<float>(m) * 0x1p-24f;
  std::memcpy(&small, &sub, sizeof small);
  const std::uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const std::uint32_t special = 0x7F800000u | (m != 0 ? 0x400000u | (m << 13) : 0u);
  const std::uint32_t magnitude = e == 0 ? small : (e == 31 ? special : normal);
  return float_from_bits(sign | magnitude);
}

// spec/half-precision.md section 5: the bits moved up 16, the quiet bit forced for NaN.
inline float widen_bfloat16(std::uint16_t b) noexcept {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  return float_from_bits((bits & 0x7FFFFFFFu) > 0x7F800000u ? bits | 0x400000u : bits);
}

// n values widened from src to dst, by the loop the registry list (gemm_half_list.inc) gives
// `isa`: a vector loop where there is one, the same bits as the scalar one.
void widen_row(Isa isa, HalfFormat format, const std::uint16_t* src, float* dst, std::size_t n);

#define ONEMODEL_HALF_WIDEN_VARIANT(suffix, isa, name)                                         \
  void widen_binary16_row__##suffix(const std::uint16_t* src, float* dst, std::size_t n); \
  void widen_bfloat16_row__##suffix(const std::uint16_t* src, float* dst, std::size_t n);
#include "optimized/kernels/gemm/gemm_half_list.inc"

using WidenRowFn = void (*)(const std::uint16_t* src, float* dst, std::size_t n);

// One variant of the family (kernel_registry.hpp), from gemm_half_list.inc.
struct HalfWidenVariant {
  std::string_view name;
  Isa isa;
  WidenRowFn binary16;
  WidenRowFn bfloat16;
};

// The registry: every widener this build has, best first, scalar last; widen_row and the tests
// read it.
std::span<const HalfWidenVariant> half_widen_variants() noexcept;

// pack_b_strip (gemm_pack.hpp) from a 16-bit B: rows [p0, p0 + kc), columns [j0, j0 + valid)
// widened at out[(p - p0) * nr + (j - j0)], +0 in columns [valid, nr).
void pack_b_strip_half(const HalfMatrixView& b, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t valid,
                       std::size_t nr, float* out);

// pack_a_block (gemm_pack.hpp) from a 16-bit A: rows [row0, row0 + rows) and k [p0, p0 + kc) as
// strips of mr rows, element (p, r) of a strip at p * mr + r, rows beyond `rows` +0.
void pack_a_block_half(const HalfMatrixView& a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc,
                       std::size_t mr, float* out);

}  // namespace gemm

// A constant 16-bit B packed once in the layout of PackedB (gemm_pack.hpp, packed_b_offset: per
// k-block, strips of the path's NR columns, element (p, j) at p * NR + j, a ragged last strip padded
// with +0), still 16 bits wide: a strip is then kc * NR contiguous values, widened in one sequential
// pass when a tile needs it. Reading the unpacked B strip by strip touches a new row (and often a
// new page) every NR values, which made the products of BERT-base three times slower.
struct PackedHalfB {
  const std::uint16_t* data = nullptr;  // packed_half_b_size(isa, k, n) values
  std::size_t k = 0, n = 0;
  HalfFormat format = HalfFormat::Binary16;
  Isa isa = Isa::Scalar;  // the path whose NR the layout uses, and whose loop widens it
};
// 16-bit values of the packed layout (packed_b_size with the path's NR).
std::size_t packed_half_b_size(Isa isa, std::size_t k, std::size_t n) noexcept;
// Copies the bits of `b` (k x n) into the packed layout at `out` (padding +0, bits 0x0000).
void pack_half_b(Isa isa, std::size_t k, std::size_t n, const HalfMatrixView& b, std::uint16_t* out) noexcept;
// The strip source of a packed 16-bit B (state is `b`, which must outlive the call). Asked for the
// strip at column `col`, a multiple of NR (as the product asks), it widens that whole strip.
BStripSource packed_half_b_source(const PackedHalfB& b) noexcept;

// The strip source of a 16-bit B (BStripSource::state is `view`, which must outlive the call).
BStripSource half_b_source(const HalfMatrixView& view) noexcept;
// The block source of a 16-bit A (AStripSource::state is `view`, which must outlive the call).
AStripSource half_a_source(const HalfMatrixView& view) noexcept;

}  // namespace onemodel::opt
