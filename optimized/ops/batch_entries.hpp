// How a batched float32 product (the MatMul override, op_matmul.cpp, and the fused
// Transpose + MatMul, passes/transposed_matmul_op.cpp) spreads its batch entries over the pool.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt {

// kernels-gemm.md "Fixed chunks": one batch entry per chunk when the entries are small, or when
// there are two or more of up to kMaxEntryChunkNs each (the heads of an attention's two
// products: 3-12 entries of 128-197 rows), each entry on one thread; larger entries use the pool
// inside the product instead. Shared inside, each head's product woke the pool twice (B's packing,
// then its tiles) for 15-60 us of work: two threads took 1.0-1.35x one thread's time on ViT's and
// BERT's head products where ONNX Runtime gains 1.7-1.9x. A product's bits do not depend on the
// threads that run it (kernels-gemm.md), so this changes only who computes an entry.
inline constexpr double kMaxEntryChunkNs = 250000.0;  // about 10 million multiply-adds

inline bool batch_entries_as_chunks(std::int64_t batches, double per_entry_ns) noexcept {
  return per_entry_ns < ThreadPool::kNanosecondsPerThread || (batches >= 2 && per_entry_ns <= kMaxEntryChunkNs);
}

// Runs product(context, entry) for every entry of the batch: as chunks, each on one thread
// (batch_entries_as_chunks), or one after the other with the pool inside each.
template <class Product>
void run_batch_entries(const KernelContext& kc, std::int64_t batches, double per_entry_ns, Product&& product) {
  if (batch_entries_as_chunks(batches, per_entry_ns)) {
    const KernelContext single{kc.isa, kc.exact, nullptr};
    kc.parallel_for(static_cast<std::size_t>(batches), per_entry_ns * static_cast<double>(batches),
                    [&](std::size_t bi) { product(single, static_cast<std::int64_t>(bi)); });
    return;
  }
  for (std::int64_t bi = 0; bi < batches; ++bi) product(kc, bi);
}

}  // namespace onemodel::opt
