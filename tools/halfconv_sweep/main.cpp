// Every binary32 bit pattern (2^32) narrowed to binary16 and to bfloat16 by each instruction-set
// path of the optimized engine's bulk conversion (optimized/runtime/half_conversions.cpp), compared
// with the scalar rules of spec/half-precision.md sections 2 and 4 (onemodel/half.hpp). The unit
// test (tests/unit/half_vector_conversion_test.cpp) covers every widening pattern and 2.6 million
// narrowing ones, every rounding boundary among them; this sweep is the whole space, too long for
// CI: run it by hand after touching a conversion (about a minute per path on one core).
// Exit status 0 when every pattern agrees, 1 otherwise (the first mismatches are printed).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "onemodel/half.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/runtime/half_conversions.hpp"

int main() {
  using namespace onemodel;
  constexpr std::size_t kBlock = 1u << 16;
  std::vector<float> in(kBlock);
  std::vector<std::uint16_t> got(kBlock);
  int failures = 0;
  for (const opt::Isa isa : opt::available_isas()) {
    for (const bool bfloat16 : {false, true}) {
      std::uint64_t mismatches = 0;
      for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += kBlock) {
        for (std::size_t i = 0; i < kBlock; ++i) {
          const std::uint32_t bits = static_cast<std::uint32_t>(base + i);
          std::memcpy(&in[i], &bits, sizeof bits);
        }
        opt::narrow_f32_to_16(isa, in.data(), got.data(), kBlock, bfloat16);
        for (std::size_t i = 0; i < kBlock; ++i) {
          const std::uint16_t want = bfloat16 ? float_to_bfloat16_bits(in[i]) : float_to_half_bits(in[i]);
          if (got[i] == want) continue;
          if (++mismatches <= 5) {
            std::printf("  %s %s: 0x%08llx -> 0x%04x, the rule gives 0x%04x\n", opt::isa_name(isa).data(),
                        bfloat16 ? "bfloat16" : "binary16", static_cast<unsigned long long>(base + i), got[i], want);
          }
        }
      }
      std::printf("%-8s %-8s narrowing: %llu of 4294967296 patterns differ\n", opt::isa_name(isa).data(),
                  bfloat16 ? "bfloat16" : "binary16", static_cast<unsigned long long>(mismatches));
      if (mismatches != 0) ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
