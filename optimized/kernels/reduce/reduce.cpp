// Chunking and dispatch of the float32 reductions (ops-norms.md, "Chunks"): a chunk covers
// max(1, 32768 / work) outputs (row layout; work = terms per output) or tiles of 256 outputs
// (column layout; work = elements a tile reads). Chunk sizes depend on the geometry only and no
// output is split across chunks, so thread count cannot change a result.
#include "optimized/kernels/reduce/reduce.hpp"

#include "optimized/kernels/reduce/reduce_variants.hpp"

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunkWork = 32768;
constexpr std::size_t kColumnTile = 256;
constexpr double kNanosecondsPerElement = 0.3;

// The registry table, from the list (reduce_list.inc).
constexpr ReduceVariant kVariants[] = {
#define ONEMODEL_REDUCE_VARIANT(ns, isa, name) \
  ReduceVariant{name, Isa::isa, ns::reduce_rows_f32, ns::reduce_columns_f32, ns::sum16_f32},
#include "optimized/kernels/reduce/reduce_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const ReduceVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<ReduceVariant> choice{std::span<const ReduceVariant>(kVariants)};
  return choice[isa];
}

std::size_t at_least_one(std::size_t v) noexcept { return v == 0 ? 1 : v; }

}  // namespace

std::span<const ReduceVariant> reduce_variants() noexcept { return kVariants; }

float sum16_f32(Isa isa, const float* t, std::size_t n) noexcept { return variant_for(isa).sum16(t, n); }

void reduce_f32(const KernelContext& context, ReduceKind kind, ReduceTerm term, const float* x, float* out,
                std::size_t outer, std::size_t reduced, std::size_t inner) {
  const ReduceVariant& v = variant_for(context.isa);
  const double estimate = kNanosecondsPerElement * static_cast<double>(outer * reduced * inner);
  if (inner == 1) {
    // Row layout: units are outputs reading `reduced` elements each.
    const std::size_t per_chunk = at_least_one(kChunkWork / at_least_one(reduced));
    const std::size_t chunks = (outer + per_chunk - 1) / per_chunk;
    context.parallel_for(chunks, estimate, [&](std::size_t c) {
      const std::size_t begin = c * per_chunk;
      const std::size_t end = begin + per_chunk < outer ? begin + per_chunk : outer;
      v.rows(kind, term, x, out, begin, end, reduced);
    });
    return;
  }
  // Column layout: units are tiles of up to 256 neighbouring outputs of one outer index.
  const std::size_t tiles_per_outer = (inner + kColumnTile - 1) / kColumnTile;
  const std::size_t tiles = outer * tiles_per_outer;
  const std::size_t tile_work = at_least_one(reduced * (inner < kColumnTile ? inner : kColumnTile));
  const std::size_t per_chunk = at_least_one(kChunkWork / tile_work);
  const std::size_t chunks = (tiles + per_chunk - 1) / per_chunk;
  context.parallel_for(chunks, estimate, [&](std::size_t c) {
    const std::size_t begin = c * per_chunk;
    const std::size_t end = begin + per_chunk < tiles ? begin + per_chunk : tiles;
    for (std::size_t t = begin; t < end; ++t) {
      const std::size_t o = t / tiles_per_outer;
      const std::size_t c0 = (t % tiles_per_outer) * kColumnTile;
      const std::size_t count = c0 + kColumnTile < inner ? kColumnTile : inner - c0;
      v.columns(kind, term, x + o * reduced * inner, out + o * inner, reduced, inner, c0, count);
    }
  });
}

}  // namespace onemodel::opt
