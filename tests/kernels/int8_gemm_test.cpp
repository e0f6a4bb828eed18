// The integer product kernel (optimized/kernels/int8gemm, spec-source int8.md "Product kernel")
// against a 64-bit naive loop of the definition, C = sum_k (A - zA)(B - zB): every micro kernel the
// build and CPU can run (each Isa level's variants: AVX-512 with and without VNNI, NEON with and
// without SDOT), 1 and 2 threads, random shapes with each dimension 0..70 (and a few larger:
// several row blocks, long and odd K), uint8 and int8 operands in every mix, zero points per tensor, per row and per column, extreme
// operands (all 0, all 255, all -128) where the shifted-domain correction is largest. Integer
// arithmetic is exact, so every path and thread count must give exactly the naive result.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace onemodel::opt {
namespace {

struct Case {
  std::size_t m, n, k;
  bool a_signed, b_signed;
  std::vector<std::uint8_t> a, b;  // row-major, ld k and n
  std::vector<std::int32_t> za, zb;
};

std::int64_t value(std::uint8_t byte, bool is_signed) {
  return is_signed ? static_cast<std::int64_t>(static_cast<std::int8_t>(byte)) : static_cast<std::int64_t>(byte);
}

std::vector<std::int32_t> naive(const Case& c) {
  std::vector<std::int32_t> out(c.m * c.n);
  for (std::size_t i = 0; i < c.m; ++i) {
    for (std::size_t j = 0; j < c.n; ++j) {
      std::int64_t sum = 0;
      const std::int64_t za = c.za[c.za.size() == 1 ? 0 : i], zb = c.zb[c.zb.size() == 1 ? 0 : j];
      for (std::size_t kk = 0; kk < c.k; ++kk) {
        sum += (value(c.a[i * c.k + kk], c.a_signed) - za) * (value(c.b[kk * c.n + j], c.b_signed) - zb);
      }
      out[i * c.n + j] = static_cast<std::int32_t>(sum);
    }
  }
  return out;
}

// fill: 0 random, 1 every byte 0x00, 2 every byte 0xFF, 3 every byte 0x80.
Case make_case(std::mt19937& rng, std::size_t m, std::size_t n, std::size_t k, int fill) {
  Case c{m, n, k, (rng() & 1) != 0, (rng() & 1) != 0, {}, {}, {}, {}};
  const auto byte = [&]() -> std::uint8_t {
    switch (fill) {
      case 1: return 0x00;
      case 2: return 0xFF;
      case 3: return 0x80;
      default: return static_cast<std::uint8_t>(rng());
    }
  };
  c.a.resize(m * k);
  c.b.resize(k * n);
  for (auto& v : c.a) v = byte();
  for (auto& v : c.b) v = byte();
  const auto zero = [&](bool is_signed) {
    const std::int32_t r = static_cast<std::int32_t>(rng() % 256);
    return is_signed ? r - 128 : r;
  };
  c.za.resize((rng() % 2 == 0 || m == 0) ? 1 : m);
  c.zb.resize((rng() % 2 == 0 || n == 0) ? 1 : n);
  for (auto& z : c.za) z = fill == 0 ? zero(c.a_signed) : (c.a_signed ? -128 : 255);
  for (auto& z : c.zb) z = fill == 0 ? zero(c.b_signed) : (c.b_signed ? 127 : 0);
  return c;
}

// B packed for the path's Isa level (as a caller packs it), the product on that one micro kernel.
std::vector<std::int32_t> run(const Case& c, const int8::Path& path, ThreadPool* pool) {
  const int8::Operand a{c.a.data(), c.a_signed, c.k};
  const int8::Operand b{c.b.data(), c.b_signed, c.n};
  const int8::PackedB packed = int8::pack_b(b, c.k, c.n, path.isa);
  std::vector<std::int32_t> out(c.m * c.n, 0x5A5A5A5A);
  if (&path == &int8::path_for(path.isa)) {
    int8::gemm(c.m, a, c.za, packed, c.zb, out.data(), c.n, pool, path.isa);  // the public entry
  } else {
    int8::gemm_on(path, c.m, a, c.za, packed, c.zb, out.data(), c.n, pool);
  }
  return out;
}

// Every micro kernel of the family's registry list that this build and CPU can run (VNNI and plain
// AVX-512, SDOT and widening NEON, the scalar loops included); the others are reported skipped.
// Two variants share a level here, so the tests name each variant (gemm_on) rather than capping
// the path at its ISA (tests/kernels/variant_paths.hpp).
std::vector<const int8::Path*> every_kernel() {
  std::vector<const int8::Path*> out;
  for (const int8::Path& p : int8::variants()) {
    if (variant_runs_here(p)) {
      out.push_back(&p);
    } else {
      std::printf("[ SKIPPED  ] variant %s: not on this CPU\n", p.name);
    }
  }
  return out;
}

// The list's form (docs/design.md, "Kernel registry"), and variants_for agreeing with it: every
// runnable variant is among variants_for of its own level, path_for first.
TEST(Int8GemmRegistry, ListFormAndVariantsForAgree) {
  kernel_tests::expect_registry_form(int8::variants(), "i8_gemm");
  for (const int8::Path* p : every_kernel()) {
    const auto level = int8::variants_for(p->isa);
    ASSERT_FALSE(level.empty());
    EXPECT_EQ(level[0], &int8::path_for(p->isa));
    bool found = false;
    for (const int8::Path* q : level) found = found || q == p;
    EXPECT_TRUE(found) << p->name << " is not among the variants of its level";
  }
}

std::string describe(const Case& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) + (c.a_signed ? " s8" : " u8") +
         (c.b_signed ? "*s8" : "*u8") + " za" + std::to_string(c.za.size()) + " zb" + std::to_string(c.zb.size());
}

TEST(Int8Gemm, EveryPathAndThreadCountGivesTheNaiveResult) {
  two_threads::RequireSharedCalls shared("int8 product");
  ThreadPool two(2, two_threads::kAlways);
  std::mt19937 rng(20261202);
  std::vector<Case> cases;
  for (int i = 0; i < 120; ++i) cases.push_back(make_case(rng, rng() % 71, rng() % 71, rng() % 71, 0));
  for (std::size_t d = 0; d <= 70; d += 7) {  // each dimension swept alone
    cases.push_back(make_case(rng, d, 17, 33, 0));
    cases.push_back(make_case(rng, 29, d, 33, 0));
    cases.push_back(make_case(rng, 29, 17, d, 0));
  }
  for (int fill = 1; fill <= 3; ++fill) cases.push_back(make_case(rng, 53, 37, 70, fill));
  cases.push_back(make_case(rng, 150, 70, 300, 0));  // several row blocks of 48 and a long K
  cases.push_back(make_case(rng, 97, 45, 1027, 0));  // an odd number of pairs (SDOT's lone last pair)
  cases.push_back(make_case(rng, 100, 200, 2050, 2));  // every byte 0xFF over a long K
  const std::vector<const int8::Path*> kernels = every_kernel();
  for (const int8::Path* path : kernels) std::printf("micro kernel: %s\n", path->name);
  for (const Case& c : cases) {
    const std::vector<std::int32_t> want = naive(c);
    for (const int8::Path* path : kernels) {
      EXPECT_EQ(run(c, *path, nullptr), want) << describe(c) << " on " << path->name << ", one thread";
      EXPECT_EQ(run(c, *path, &two), want) << describe(c) << " on " << path->name << ", two threads";
    }
  }
}

TEST(Int8Gemm, RefusesBPackedForAnotherPathAndKPastTheBound) {
  const std::vector<std::uint8_t> bytes(16 * 16, 1);
  const int8::Operand b{bytes.data(), false, 16};
  int8::PackedB packed = int8::pack_b(b, 16, 16, Isa::Scalar);
  packed.nr = 8;  // as if another path had packed it
  std::vector<std::int32_t> out(16 * 16);
  const std::int32_t zero = 0;
  EXPECT_THROW(int8::gemm(16, b, {&zero, 1}, packed, {&zero, 1}, out.data(), 16, nullptr, Isa::Scalar),
               std::invalid_argument);
  EXPECT_THROW(int8::pack_b(b, int8::kMaxK + 1, 16, Isa::Scalar), std::length_error);
  // A PackedB whose sizes do not match its k and n (plain data, editable by its holder).
  int8::PackedB short_panels = int8::pack_b(b, 16, 16, Isa::Scalar);
  short_panels.panels.pop_back();
  EXPECT_THROW(int8::gemm(16, b, {&zero, 1}, short_panels, {&zero, 1}, out.data(), 16, nullptr, Isa::Scalar),
               std::invalid_argument);
  int8::PackedB wrong_k = int8::pack_b(b, 16, 16, Isa::Scalar);
  wrong_k.k = 18;  // pairs no longer (k + 1) / 2
  EXPECT_THROW(int8::gemm(16, b, {&zero, 1}, wrong_k, {&zero, 1}, out.data(), 16, nullptr, Isa::Scalar),
               std::invalid_argument);
}

}  // namespace
}  // namespace onemodel::opt
