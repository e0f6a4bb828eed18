// Chunking and dispatch (from the registry list, softmax_list.inc) of the softmax rows: chunks of
// max(1, 16384 / cols) rows (ops-norms.md, "Softmax, LogSoftmax, Hardmax"), a constant of the
// shape, never of the threads.
#include "optimized/kernels/softmax/softmax.hpp"

#include "optimized/kernels/softmax/softmax_variants.hpp"

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kChunkElements = 16384;
constexpr double kNanosecondsPerElement = 1.0;

// The registry table, from the list (softmax_list.inc).
constexpr SoftmaxVariant kVariants[] = {
#define ONEMODEL_SOFTMAX_VARIANT(ns, isa, name) \
  SoftmaxVariant{name, Isa::isa, ns::softmax_rows_f32, ns::log_softmax_rows_f32},
#include "optimized/kernels/softmax/softmax_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const SoftmaxVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<SoftmaxVariant> choice{std::span<const SoftmaxVariant>(kVariants)};
  return choice[isa];
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

std::span<const SoftmaxVariant> softmax_variants() noexcept { return kVariants; }

void softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows, std::size_t cols) {
  const SoftmaxRowsFn fn = variant_for(context.isa).softmax;
  const bool fast = !context.exact;
  for_row_chunks(context, rows, cols, [&](std::size_t begin, std::size_t end) { fn(x, y, begin, end, cols, fast); });
}

void log_softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows,
                          std::size_t cols, float (*log_fn)(float)) {
  const LogSoftmaxRowsFn fn = variant_for(context.isa).log_softmax;
  const bool fast = !context.exact;
  for_row_chunks(context, rows, cols,
                 [&](std::size_t begin, std::size_t end) { fn(x, y, begin, end, cols, fast, log_fn); });
}

}  // namespace onemodel::opt
