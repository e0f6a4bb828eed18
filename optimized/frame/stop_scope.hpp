// How a run stops a long kernel early (spec/session.md section 8): the thread that runs a plan
// installs its stop test for the length of the run; ThreadPool::parallel_for reads it on the
// calling thread and polls it before every chunk, on whichever thread runs the chunk. Once it
// says stop, the chunks not yet started are skipped: the kernel returns with part of its output
// unwritten, and the run, which checks the same test after every node, throws Cancelled without
// reading that output. So a kernel must not use what a chunk writes as an index or a size (the
// kernels' chunks write element values only).
#pragma once

#include "optimized/frame/function_ref.hpp"

namespace onemodel::opt {

class StopScope {
 public:
  // `stop` must outlive the scope and be safe to call from several threads at once.
  explicit StopScope(const FunctionRef<bool()>& stop) noexcept;
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

  // The stop test installed on the calling thread, or nullptr.
  static const FunctionRef<bool()>* current() noexcept;

 private:
  const FunctionRef<bool()>* previous_;
};

}  // namespace onemodel::opt
