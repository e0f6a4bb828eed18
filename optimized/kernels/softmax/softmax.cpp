// Chunking and dispatch of the softmax rows: chunks of max(1, 16384 / cols) rows
// (ops-norms.md, "Softmax, LogSoftmax, Hardmax"), a constant of the shape, never of the threads.
#include "optimized/kernels/softmax/softmax.hpp"

#include "optimized/kernels/softmax/softmax_variants.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunkElements = 16384;
constexpr double kNanosecondsPerElement = 1.0;

using RowsFn = void (*)(const float*, float*, std::size_t, std::size_t, std::size_t, bool) noexcept;
using LogRowsFn = void (*)(const float*, float*, std::size_t, std::size_t, std::size_t, bool,
                           float (*)(float)) noexcept;

struct Variant {
  RowsFn softmax;
  LogRowsFn log_softmax;
};

Variant variant_for(Isa isa) noexcept {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512: return {avx512::softmax_rows_f32, avx512::log_softmax_rows_f32};
    case Isa::Avx2: return {avx2::softmax_rows_f32, avx2::log_softmax_rows_f32};
    case Isa::Sse: return {sse::softmax_rows_f32, sse::log_softmax_rows_f32};
#endif
#if defined(__aarch64__)
    case Isa::Neon: return {neon::softmax_rows_f32, neon::log_softmax_rows_f32};
#endif
#if defined(__wasm_simd128__)
    case Isa::Wasm: return {wasm::softmax_rows_f32, wasm::log_softmax_rows_f32};
#endif
    default: return {scalar::softmax_rows_f32, scalar::log_softmax_rows_f32};
  }
}

template <class Fn>
void for_row_chunks(const KernelContext& context, std::size_t rows, std::size_t cols, Fn fn) {
  const std::size_t per_chunk = cols == 0 || cols > kChunkElements ? 1 : kChunkElements / cols;
  const std::size_t chunks = (rows + per_chunk - 1) / per_chunk;
  context.parallel_for(chunks, kNanosecondsPerElement * static_cast<double>(rows * cols), [&](std::size_t c) {
    const std::size_t begin = c * per_chunk;
    fn(begin, begin + per_chunk < rows ? begin + per_chunk : rows);
  });
}

}  // namespace

void softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows, std::size_t cols) {
  const RowsFn fn = variant_for(context.isa).softmax;
  const bool fast = !context.exact;
  for_row_chunks(context, rows, cols, [&](std::size_t begin, std::size_t end) { fn(x, y, begin, end, cols, fast); });
}

void log_softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows,
                          std::size_t cols, float (*log_fn)(float)) {
  const LogRowsFn fn = variant_for(context.isa).log_softmax;
  const bool fast = !context.exact;
  for_row_chunks(context, rows, cols,
                 [&](std::size_t begin, std::size_t end) { fn(x, y, begin, end, cols, fast, log_fn); });
}

}  // namespace onemodel::opt
