// CPU features the integer product needs beyond its Isa level (int8_gemm.hpp, path_for): the Isa
// levels come from optimized/frame/isa.cpp; a VNNI or SDOT micro kernel is a variant inside a level,
// chosen here so that the ONEMODEL_ISA cap keeps its meaning.
#include "optimized/kernels/int8gemm/int8_gemm.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace onemodel::opt::int8 {

bool cpu_has_avx512_vnni() noexcept {
#if defined(__x86_64__)
  // CPUID leaf 7 sub-leaf 0, ECX bit 11: AVX512_VNNI. The register state (zmm, opmask) is the
  // Avx512 level's check (isa.cpp), which a caller asking for this variant has already passed.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & (1u << 11)) != 0;
#else
  return false;
#endif
}

bool cpu_has_arm_dotprod() noexcept {
#if defined(__aarch64__) && defined(__linux__)
  // HWCAP_ASIMDDP (bit 20 of AT_HWCAP): SDOT/UDOT (Armv8.2 dot product, mandatory from Armv8.4).
  return (getauxval(AT_HWCAP) & (1ul << 20)) != 0;
#else
  return false;
#endif
}

}  // namespace onemodel::opt::int8
