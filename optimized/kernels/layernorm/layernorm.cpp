// Chunking and dispatch of LayerNormalization: chunks of max(1, 16384 / cols) rows
// (ops-norms.md, "LayerNormalization, RMSNormalization"), a constant of the shape.
#include "optimized/kernels/layernorm/layernorm.hpp"

#include "optimized/kernels/layernorm/layernorm_variants.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunkElements = 16384;
constexpr double kNanosecondsPerElement = 0.5;

using RowsFn = void (*)(const LayerNormArgs&, std::size_t, std::size_t) noexcept;

RowsFn variant_for(Isa isa) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512: return avx512::layer_norm_rows_f32;
    case Isa::Avx2: return avx2::layer_norm_rows_f32;
    case Isa::Sse: return sse::layer_norm_rows_f32;
#endif
#if defined(__aarch64__)
    case Isa::Neon: return neon::layer_norm_rows_f32;
#endif
#if defined(__wasm_simd128__)
    case Isa::Wasm: return wasm::layer_norm_rows_f32;
#endif
    default: return scalar::layer_norm_rows_f32;
  }
}

}  // namespace

void layer_norm_f32(const KernelContext& context, const LayerNormArgs& args) {
  const RowsFn fn = variant_for(context.isa);
  const std::size_t per_chunk = args.cols == 0 || args.cols > kChunkElements ? 1 : kChunkElements / args.cols;
  const std::size_t chunks = (args.rows + per_chunk - 1) / per_chunk;
  context.parallel_for(chunks, kNanosecondsPerElement * static_cast<double>(args.rows * args.cols),
                       [&](std::size_t c) {
                         const std::size_t begin = c * per_chunk;
                         fn(args, begin, begin + per_chunk < args.rows ? begin + per_chunk : args.rows);
                       });
}

}  // namespace onemodel::opt
