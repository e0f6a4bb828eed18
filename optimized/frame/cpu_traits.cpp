// CPUID facts that pick between variants of equal bits (cpu_traits.hpp).
#include "optimized/frame/cpu_traits.hpp"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

namespace onemodel::opt {
namespace {

bool detect_halves() noexcept {
#if defined(__x86_64__) || defined(_M_X64)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
  // The vendor string is EBX, EDX, ECX in that order ("AuthenticAMD").
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  // Leaf 1 EAX: base family in bits 8-11; the extended family (bits 20-27) adds to it when the
  // base family is 0xF.
  unsigned family = (eax >> 8) & 0xFu;
  if (family == 0xFu) family += (eax >> 20) & 0xFFu;
  return splits_512bit_vectors(std::string_view(vendor, sizeof vendor), family);
#else
  return false;
#endif
}

bool choose_halves() noexcept {
  const char* forced = std::getenv("ONEMODEL_AVX512_HALVES");
  if (forced != nullptr && std::strcmp(forced, "0") == 0) return false;
  if (forced != nullptr && std::strcmp(forced, "1") == 0) return true;
  // "other": the tuning this CPU would not choose, so one extra kernel-test run covers the second
  // kernel on every AVX-512 CPU instead of two runs of which one repeats the default.
  if (forced != nullptr && std::strcmp(forced, "other") == 0) return !detect_halves();
  return detect_halves();
}

}  // namespace

bool splits_512bit_vectors(std::string_view vendor, unsigned family) noexcept {
  return vendor == "AuthenticAMD" && family == 0x19u;
}

bool avx512_exact_halves() noexcept {
  static const bool halves = choose_halves();
  return halves;
}

}  // namespace onemodel::opt
