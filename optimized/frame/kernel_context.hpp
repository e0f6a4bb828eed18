// What every optimized kernel receives besides its operands: the instruction-set path, the mode
// and the pool that runs its chunks (nullptr: the calling thread only).
#pragma once

#include "optimized/frame/isa.hpp"
#include "optimized/frame/stop_scope.hpp"
#include "optimized/frame/thread_pool.hpp"

namespace onemodel::opt {

struct KernelContext {
  Isa isa = Isa::Scalar;
  bool exact = false;  // exact-mode.md rules: no fused multiply-add, canonical NaN
  ThreadPool* pool = nullptr;

  // Runs chunk(i) for i in [0, chunks), on the pool when there is one.
  void parallel_for(std::size_t chunks, double estimate_ns, FunctionRef<void(std::size_t)> chunk) const {
    if (pool != nullptr) {
      pool->parallel_for(chunks, estimate_ns, chunk);
    } else {
      // As the pool does: a stopped run skips the chunks not yet started (stop_scope.hpp).
      const FunctionRef<bool()>* stop = StopScope::current();
      for (std::size_t i = 0; i < chunks; ++i) {
        if (stop != nullptr && (*stop)()) return;
        chunk(i);
      }
    }
  }
};

}  // namespace onemodel::opt
