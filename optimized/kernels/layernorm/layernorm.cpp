// Chunking and dispatch (from the registry list, layernorm_list.inc) of LayerNormalization:
// chunks of max(1, 16384 / cols) rows (ops-norms.md, "LayerNormalization, RMSNormalization"), a
// constant of the shape.
#include "optimized/kernels/layernorm/layernorm.hpp"

#include "optimized/kernels/layernorm/layernorm_variants.hpp"

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunkElements = 16384;
constexpr double kNanosecondsPerElement = 0.5;

// The registry table, from the list (layernorm_list.inc).
constexpr LayerNormVariant kVariants[] = {
#define ONEMODEL_LAYERNORM_VARIANT(ns, isa, name) \
  LayerNormVariant{name, Isa::isa, ns::layer_norm_rows_f32},
#include "optimized/kernels/layernorm/layernorm_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const LayerNormVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<LayerNormVariant> choice{std::span<const LayerNormVariant>(kVariants)};
  return choice[isa];
}

}  // namespace

std::span<const LayerNormVariant> layernorm_variants() noexcept { return kVariants; }

void layer_norm_f32(const KernelContext& context, const LayerNormArgs& args) {
  const LayerNormRowsFn fn = variant_for(context.isa).rows;
  const std::size_t per_chunk = args.cols == 0 || args.cols > kChunkElements ? 1 : kChunkElements / args.cols;
  const std::size_t chunks = (args.rows + per_chunk - 1) / per_chunk;
  context.parallel_for(chunks, kNanosecondsPerElement * static_cast<double>(args.rows * args.cols),
                       [&](std::size_t c) {
                         const std::size_t begin = c * per_chunk;
                         fn(args, begin, begin + per_chunk < args.rows ? begin + per_chunk : args.rows);
                       });
}

}  // namespace onemodel::opt
