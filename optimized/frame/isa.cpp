// CPU checks for the kernel paths. x86-64: SSE4.1 from CPUID leaf 1, AVX2 and FMA from leaves 1
// and 7 plus the OS's saving of the ymm state (XGETBV), the checks a kernel needs before using
// those registers; AVX-512 (F, DQ, BW, VL) from leaf 7 plus the OS's saving of the opmask and
// zmm state (XCR0 bits 5, 6, 7). aarch64 always has NEON; WebAssembly builds have SIMD128 when compiled with it.
#include "optimized/frame/isa.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

namespace onemodel::opt {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
std::uint64_t read_xcr0() noexcept {
  std::uint32_t eax = 0;
  std::uint32_t edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}

struct X86Features {
  bool sse41 = false;
  bool avx2_fma = false;
  bool avx512 = false;  // F, DQ, BW and VL, with the state saved by the OS
};

X86Features detect_x86() noexcept {
  X86Features features;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return features;
  features.sse41 = (ecx & (1u << 19)) != 0;
  const bool fma = (ecx & (1u << 12)) != 0;
  const bool osxsave = (ecx & (1u << 27)) != 0;
  const bool avx = (ecx & (1u << 28)) != 0;
  // F16C (leaf 1 ECX bit 29): the AVX2 level converts binary16 with it (halfconv_avx2.cpp); every
  // AVX2 processor has it, and the _avx2 files are compiled with -mf16c.
  const bool f16c = (ecx & (1u << 29)) != 0;
  if (!(fma && osxsave && avx && f16c)) return features;
  if ((read_xcr0() & 0x6) != 0x6) return features;  // xmm and ymm state saved by the OS
  unsigned eax7 = 0, ebx7 = 0, ecx7 = 0, edx7 = 0;
  if (!__get_cpuid_count(7, 0, &eax7, &ebx7, &ecx7, &edx7)) return features;
  features.avx2_fma = (ebx7 & (1u << 5)) != 0;
  // Leaf 7 EBX: avx512f bit 16, avx512dq 17, avx512bw 30, avx512vl 31. The _avx512 files are
  // compiled with all four (cmake/kernel_sources.cmake), so all four are required.
  const unsigned avx512_bits = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
  // XCR0: bit 1 xmm, 2 ymm, 5 opmask, 6 upper halves of zmm0-15, 7 zmm16-31.
  const std::uint64_t zmm_state = 0x2 | 0x4 | 0x20 | 0x40 | 0x80;
  features.avx512 = features.avx2_fma && (ebx7 & avx512_bits) == avx512_bits && (read_xcr0() & zmm_state) == zmm_state;
  return features;
}
#endif

struct IsaList {
  std::array<Isa, 4> items{};
  std::size_t count = 0;
};

IsaList detect() noexcept {
  IsaList list;
  list.items[list.count++] = Isa::Scalar;
#if defined(__x86_64__) || defined(_M_X64)
  const X86Features features = detect_x86();
  if (features.sse41) list.items[list.count++] = Isa::Sse;
  if (features.sse41 && features.avx2_fma) list.items[list.count++] = Isa::Avx2;
  if (features.sse41 && features.avx512) list.items[list.count++] = Isa::Avx512;
#elif defined(__aarch64__)
  list.items[list.count++] = Isa::Neon;
#elif defined(__wasm_simd128__)
  list.items[list.count++] = Isa::Wasm;
#endif
  return list;
}

const IsaList& detected() noexcept {
  static const IsaList list = detect();
  return list;
}

// -1: no cap; else the highest level allowed.
int cap_level(std::string* unknown) noexcept {
  const char* value = std::getenv("ONEMODEL_ISA");
  if (value == nullptr || *value == '\0') return -1;
  if (std::strcmp(value, "scalar") == 0) return 0;
  if (std::strcmp(value, "sse") == 0 || std::strcmp(value, "neon") == 0 || std::strcmp(value, "wasm") == 0) return 1;
  if (std::strcmp(value, "avx2") == 0) return 2;
  if (std::strcmp(value, "avx512") == 0) return 3;
  if (unknown != nullptr) *unknown = value;
  return -1;
}

}  // namespace

std::string_view isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::Scalar: return "scalar";
    case Isa::Sse: return "sse";
    case Isa::Neon: return "neon";
    case Isa::Wasm: return "wasm";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "scalar";
}

std::string_view isa_path_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::Scalar: return "Scalar";
    case Isa::Sse: return "SSE4.1";
    case Isa::Neon: return "NEON";
    case Isa::Wasm: return "WASM-SIMD128";
    case Isa::Avx2: return "AVX2+FMA";
    case Isa::Avx512: return "AVX-512";
  }
  return "Scalar";
}

int isa_level(Isa isa) noexcept {
  switch (isa) {
    case Isa::Scalar: return 0;
    case Isa::Avx2: return 2;
    case Isa::Avx512: return 3;
    default: return 1;
  }
}

std::span<const Isa> available_isas() noexcept {
  const IsaList& list = detected();
  return {list.items.data(), list.count};
}

Isa select_isa() noexcept {
  const int cap = cap_level(nullptr);
  Isa best = Isa::Scalar;
  for (Isa isa : available_isas()) {
    if (cap < 0 || isa_level(isa) <= cap) best = isa;
  }
  return best;
}

bool isa_available(Isa isa) noexcept {
  for (Isa available : available_isas()) {
    if (available == isa) return true;
  }
  return false;
}

bool isa_from_name(std::string_view name, Isa& isa) noexcept {
  for (Isa candidate : {Isa::Scalar, Isa::Sse, Isa::Neon, Isa::Wasm, Isa::Avx2, Isa::Avx512}) {
    if (isa_name(candidate) == name) {
      isa = candidate;
      return true;
    }
  }
  return false;
}

std::string_view isa_cap_error() noexcept {
  static const std::string unknown = [] {
    std::string value;
    cap_level(&value);
    return value;
  }();
  return unknown;
}

}  // namespace onemodel::opt
