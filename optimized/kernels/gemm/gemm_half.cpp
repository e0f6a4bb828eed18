// Packing from 16-bit operands (see gemm_half.hpp). The loops are pack_b_strip's and
// pack_a_block's (gemm_pack.cpp) with a widening per value; the format is a template parameter so
// each inner loop is one branch-free conversion the compiler can vectorise.
#include "optimized/kernels/gemm/gemm_half.hpp"

#include <algorithm>

#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/gemm/gemm_path.hpp"

namespace onemodel::opt {
namespace gemm {
namespace {

template <HalfFormat F>
inline float widen(std::uint16_t v) noexcept {
  if constexpr (F == HalfFormat::Binary16) {
    return widen_binary16(v);
  } else {
    return widen_bfloat16(v);
  }
}

template <HalfFormat F>
void widen_row_of(const std::uint16_t* src, float* dst, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) dst[j] = widen<F>(src[j]);
}

template <HalfFormat F>
void pack_b_strip_of(const HalfMatrixView& b, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t valid,
                     std::size_t nr, float* out) {
  if (b.col_stride == 1) {
    // Rows of B contiguous: each row's piece widened in order.
    for (std::size_t p = 0; p < kc; ++p) {
      const std::uint16_t* src =
          b.data + static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride + static_cast<std::ptrdiff_t>(j0);
      float* dst = out + p * nr;
      widen_row(b.isa, F, src, dst, valid);
      for (std::size_t j = valid; j < nr; ++j) dst[j] = 0.0f;
    }
    return;
  }
  // B given transposed (Gemm's transB): each column contiguous in k.
  for (std::size_t j = 0; j < nr; ++j) {
    if (j < valid) {
      const std::uint16_t* src = b.data + static_cast<std::ptrdiff_t>(j0 + j) * b.col_stride;
      for (std::size_t p = 0; p < kc; ++p) out[p * nr + j] = widen<F>(src[static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride]);
    } else {
      for (std::size_t p = 0; p < kc; ++p) out[p * nr + j] = 0.0f;
    }
  }
}

template <HalfFormat F>
void pack_a_block_of(const HalfMatrixView& a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc,
                     std::size_t mr, float* out) {
  for (std::size_t s = 0; s * mr < rows; ++s) {
    float* dst = out + s * mr * kc;
    const std::size_t r0 = row0 + s * mr;
    const std::size_t valid = std::min(mr, rows - s * mr);
    for (std::size_t r = 0; r < valid; ++r) {
      const std::uint16_t* src = a.data + static_cast<std::ptrdiff_t>(r0 + r) * a.row_stride;
      if (a.col_stride == 1 && kc <= kMaxKc) {
        // A row contiguous in k (activations, a Conv's filters): widened by the path's vector
        // loop (the same floats), then dealt to the strip.
        float row[kMaxKc];
        widen_row(a.isa, F, src + p0, row, kc);
        for (std::size_t p = 0; p < kc; ++p) dst[p * mr + r] = row[p];
        continue;
      }
      for (std::size_t p = 0; p < kc; ++p) dst[p * mr + r] = widen<F>(src[static_cast<std::ptrdiff_t>(p0 + p) * a.col_stride]);
    }
    for (std::size_t r = valid; r < mr; ++r) {
      for (std::size_t p = 0; p < kc; ++p) dst[p * mr + r] = 0.0f;
    }
  }
}

}  // namespace

void widen_binary16_row__scalar(const std::uint16_t* src, float* dst, std::size_t n) {
  widen_row_of<HalfFormat::Binary16>(src, dst, n);
}

void widen_bfloat16_row__scalar(const std::uint16_t* src, float* dst, std::size_t n) {
  widen_row_of<HalfFormat::BFloat16>(src, dst, n);
}

namespace {

// The registry table, from the list (gemm_half_list.inc).
constexpr HalfWidenVariant kWidenVariants[] = {
#define ONEMODEL_HALF_WIDEN_VARIANT(suffix, isa, name) \
  HalfWidenVariant{name, Isa::isa, widen_binary16_row__##suffix, widen_bfloat16_row__##suffix},
#include "optimized/kernels/gemm/gemm_half_list.inc"
};

}  // namespace

std::span<const HalfWidenVariant> half_widen_variants() noexcept { return kWidenVariants; }

void widen_row(Isa isa, HalfFormat format, const std::uint16_t* src, float* dst, std::size_t n) {
  static const VariantChoice<HalfWidenVariant> choice{std::span<const HalfWidenVariant>(kWidenVariants)};
  const HalfWidenVariant& variant = choice[isa];
  (format == HalfFormat::Binary16 ? variant.binary16 : variant.bfloat16)(src, dst, n);
}

void pack_b_strip_half(const HalfMatrixView& b, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t valid,
                       std::size_t nr, float* out) {
  if (b.format == HalfFormat::Binary16) {
    pack_b_strip_of<HalfFormat::Binary16>(b, p0, kc, j0, valid, nr, out);
  } else {
    pack_b_strip_of<HalfFormat::BFloat16>(b, p0, kc, j0, valid, nr, out);
  }
}

void pack_a_block_half(const HalfMatrixView& a, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc,
                       std::size_t mr, float* out) {
  if (a.format == HalfFormat::Binary16) {
    pack_a_block_of<HalfFormat::Binary16>(a, row0, rows, p0, kc, mr, out);
  } else {
    pack_a_block_of<HalfFormat::BFloat16>(a, row0, rows, p0, kc, mr, out);
  }
}

}  // namespace gemm

std::size_t packed_half_b_size(Isa isa, std::size_t k, std::size_t n) noexcept {
  return gemm::packed_b_size(k, n, gemm::path_for(isa).nr);
}

void pack_half_b(Isa isa, std::size_t k, std::size_t n, const HalfMatrixView& b, std::uint16_t* out) noexcept {
  const std::size_t nr = gemm::path_for(isa).nr, block = gemm::path_for(isa).kc;
  const std::size_t strips = gemm::strip_count(n, nr);
  for (std::size_t p0 = 0; p0 < k; p0 += block) {
    const std::size_t kc = std::min(block, k - p0);
    // Row by row (B's rows are contiguous in the usual layout), each row's values dealt to the
    // strips: the same places pack_b_strip gives them, only the bits copied.
    for (std::size_t p = 0; p < kc; ++p) {
      for (std::size_t s = 0; s < strips; ++s) {
        std::uint16_t* dst = out + gemm::packed_b_offset(k, n, nr, block, p0, s) + p * nr;
        const std::size_t j0 = s * nr, valid = std::min(nr, n - j0);
        for (std::size_t j = 0; j < valid; ++j) {
          dst[j] = b.data[static_cast<std::ptrdiff_t>(p0 + p) * b.row_stride +
                          static_cast<std::ptrdiff_t>(j0 + j) * b.col_stride];
        }
        for (std::size_t j = valid; j < nr; ++j) dst[j] = 0;  // +0, as pack_b_strip pads
      }
    }
  }
}

namespace {

void fill_packed_half_b(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t, std::size_t nr,
                        float* out) {
  const PackedHalfB& b = *static_cast<const PackedHalfB*>(state);
  gemm::widen_row(b.isa, b.format,
                  b.data + gemm::packed_b_offset(b.k, b.n, nr, gemm::path_for(b.isa).kc, p0, col / nr), out, kc * nr);
}

void fill_half_b(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid, std::size_t nr,
                 float* out) {
  gemm::pack_b_strip_half(*static_cast<const HalfMatrixView*>(state), p0, kc, col, valid, nr, out);
}

void pack_half_a(const void* state, std::size_t row0, std::size_t rows, std::size_t p0, std::size_t kc, std::size_t mr,
                 float* out) {
  gemm::pack_a_block_half(*static_cast<const HalfMatrixView*>(state), row0, rows, p0, kc, mr, out);
}

}  // namespace

BStripSource half_b_source(const HalfMatrixView& view) noexcept { return BStripSource{fill_half_b, &view}; }
BStripSource packed_half_b_source(const PackedHalfB& b) noexcept { return BStripSource{fill_packed_half_b, &b, true}; }
AStripSource half_a_source(const HalfMatrixView& view) noexcept { return AStripSource{pack_half_a, &view}; }

}  // namespace onemodel::opt
