// Heap allocations made by the calling thread (bench-method.md: alloc_bytes_per_iter counts the
// timing thread's allocations). Linking a program that calls these functions replaces the global
// operator new and delete of that program with counting ones (allocation_counter.cpp): the
// benchmark row (bench_model_row) and `onemodel bench` use it, so both count the same way.
#pragma once

#include <cstdint>

namespace onemodel::refdata {

struct AllocationCount {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

// Every operator new of this thread so far (trivial thread_locals: safe at any time).
AllocationCount thread_allocations() noexcept;

}  // namespace onemodel::refdata
