// Replaces the global operator new and delete of a test binary with ones that count allocations
// on every thread while `g_counting` is set. Include it from exactly one file of a test binary
// (every tests/unit/*_test.cpp is a binary of its own): the definitions are not inline.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// GCC cannot see that the replaced operators pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
