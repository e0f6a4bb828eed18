// The float32 matrix product kernels against a naive loop written from exact-mode.md ("Matrix
// product"), on every instruction-set path this machine runs (DESIGN.md rule 7): exact mode bit
// for bit for every size 0..70 in each dimension, random strides and offsets (transposed operands
// included), special values; 1 and 2 threads; packed B against unpacked; fast mode within the
// bound of kernels-gemm.md ("Fast mode", Higham section 3.1); the epilogue's contract.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <set>
#include <span>
#include <thread>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/cpu_traits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_path.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/kernels/variant_paths.hpp"

// Heap allocations counted for the steady-state test below (this executable only). GCC cannot
// see that these replacements pair malloc with free throughout, hence the pragma.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace onemodel::opt {
namespace {

// Every listed variant of the product that this machine runs (the registry, gemm_path.hpp).
std::vector<Isa> gemm_variant_paths() { return kernel_tests::variant_paths(gemm::variants()); }

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
float from_bits(std::uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// A matrix in a larger buffer: element (r, c) at offset + r * row_stride + c * col_stride.
struct StridedMatrix {
  std::size_t rows = 0, cols = 0;
  std::ptrdiff_t offset = 0, row_stride = 0, col_stride = 1;
  std::vector<float> storage;
  float at(std::size_t r, std::size_t c) const {
    return storage[static_cast<std::size_t>(offset + static_cast<std::ptrdiff_t>(r) * row_stride +
                                            static_cast<std::ptrdiff_t>(c) * col_stride)];
  }
  MatrixView view() const { return MatrixView{storage.data() + offset, row_stride, col_stride}; }
};

enum class Layout { RowMajor, Transposed, Spread };

struct Values {
  std::mt19937& rng;
  double special_rate = 0.0;  // share of NaN, infinities, signed zeros, subnormals, huge values

  float next() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    if (u(rng) < special_rate) {
      switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
        case 0: return std::numeric_limits<float>::quiet_NaN();
        case 1: return from_bits(0xFFC00001u);  // negative NaN with a payload
        case 2: return from_bits(0x7F800001u);  // signalling NaN
        case 3: return std::numeric_limits<float>::infinity();
        case 4: return -std::numeric_limits<float>::infinity();
        case 5: return 0.0f;
        case 6: return -0.0f;
        case 7: return from_bits(std::uniform_int_distribution<std::uint32_t>(1, 0x007FFFFFu)(rng));  // subnormal
        case 8: return -from_bits(std::uniform_int_distribution<std::uint32_t>(1, 0x007FFFFFu)(rng));
        default: return (u(rng) < 0.5 ? 1.0f : -1.0f) * 3.0e38f;  // overflows when summed
      }
    }
    // Mixed magnitudes, including small ones whose products are subnormal.
    const double scale = u(rng) < 0.1 ? 1e-20 : 1.0;
    return static_cast<float>((u(rng) * 2.0 - 1.0) * scale);
  }
};

StridedMatrix make_matrix(std::size_t rows, std::size_t cols, Layout layout, Values& values) {
  StridedMatrix mat;
  mat.rows = rows;
  mat.cols = cols;
  std::uniform_int_distribution<int> small(0, 5);
  mat.offset = small(values.rng);
  const std::ptrdiff_t pad = small(values.rng);
  const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(rows), c = static_cast<std::ptrdiff_t>(cols);
  switch (layout) {
    case Layout::RowMajor:
      mat.col_stride = 1;
      mat.row_stride = c + pad;
      break;
    case Layout::Transposed:
      mat.row_stride = 1;
      mat.col_stride = r + pad;
      break;
    case Layout::Spread:
      mat.col_stride = 2 + small(values.rng) % 2;
      mat.row_stride = c * mat.col_stride + pad;
      break;
  }
  const std::ptrdiff_t extent = mat.offset + (r > 0 ? (r - 1) * mat.row_stride : 0) +
                                (c > 0 ? (c - 1) * mat.col_stride : 0) + 1;
  mat.storage.resize(static_cast<std::size_t>(extent));
  for (float& v : mat.storage) v = values.next();
  return mat;
}

// exact-mode.md, "Matrix product", literally: acc = +0; prod = round(a*b); acc = round(acc + prod);
// canonical NaN when stored. Compiled with -ffp-contract=off, so nothing is fused.
std::vector<float> naive_exact(const StridedMatrix& a, const StridedMatrix& b) {
  std::vector<float> c(a.rows * b.cols);
  for (std::size_t i = 0; i < a.rows; ++i) {
    for (std::size_t j = 0; j < b.cols; ++j) {
      float acc = 0.0f;
      for (std::size_t p = 0; p < a.cols; ++p) {
        const float prod = a.at(i, p) * b.at(p, j);
        acc = acc + prod;
      }
      c[i * b.cols + j] = std::isnan(acc) ? from_bits(0x7FC00000u) : acc;
    }
  }
  return c;
}

// C in a buffer with a row stride above n and sentinels around it, to see stray writes.
struct OutMatrix {
  static constexpr std::uint32_t kSentinel = 0x7F8DEAD1u;
  std::size_t rows, cols;
  std::ptrdiff_t ldc;
  std::vector<float> storage;
  OutMatrix(std::size_t m, std::size_t n, std::size_t pad)
      : rows(m), cols(n), ldc(static_cast<std::ptrdiff_t>(n + pad)), storage(m * (n + pad) + 8, from_bits(kSentinel)) {}
  float* data() { return storage.data() + 4; }
  float at(std::size_t r, std::size_t c) const {
    return storage[4 + r * static_cast<std::size_t>(ldc) + c];
  }
  // Empty when every element outside the matrix still holds the sentinel.
  std::string stray_writes() const {
    for (std::size_t idx = 0; idx < storage.size(); ++idx) {
      const bool inside = ldc > 0 && idx >= 4 && (idx - 4) / static_cast<std::size_t>(ldc) < rows &&
                          (idx - 4) % static_cast<std::size_t>(ldc) < cols;
      if (!inside && bits_of(storage[idx]) != kSentinel) return "write outside C at buffer index " + std::to_string(idx);
    }
    return {};
  }
};

std::string compare_bits(const OutMatrix& got, const std::vector<float>& want) {
  for (std::size_t i = 0; i < got.rows; ++i) {
    for (std::size_t j = 0; j < got.cols; ++j) {
      const std::uint32_t g = bits_of(got.at(i, j)), w = bits_of(want[i * got.cols + j]);
      if (g != w) {
        char text[160];
        std::snprintf(text, sizeof text, "C(%zu,%zu): got 0x%08X (%g), want 0x%08X (%g)", i, j, g, got.at(i, j), w,
                      want[i * got.cols + j]);
        return text;
      }
    }
  }
  return got.stray_writes();
}

std::string describe(Isa isa, std::size_t m, std::size_t n, std::size_t k, int threads, Layout la, Layout lb) {
  return std::string(isa_name(isa)) + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" +
         std::to_string(k) + " threads=" + std::to_string(threads) + " layoutA=" + std::to_string(static_cast<int>(la)) +
         " layoutB=" + std::to_string(static_cast<int>(lb));
}

Layout random_layout(std::mt19937& rng) { return static_cast<Layout>(std::uniform_int_distribution<int>(0, 2)(rng)); }

// One exact case on one path: gemm_f32 and the packed form against the naive loop.
void check_exact(Isa isa, ThreadPool* pool, std::size_t m, std::size_t n, std::size_t k, std::mt19937& rng,
                 double special_rate) {
  Values values{rng, special_rate};
  const Layout la = random_layout(rng), lb = random_layout(rng);
  const StridedMatrix a = make_matrix(m, k, la, values);
  const StridedMatrix b = make_matrix(k, n, lb, values);
  const std::vector<float> want = naive_exact(a, b);
  const KernelContext context{isa, true, pool};
  const int threads = pool == nullptr ? 1 : pool->threads();
  const std::size_t pad = std::uniform_int_distribution<std::size_t>(0, 3)(rng);

  OutMatrix c(m, n, pad);
  gemm_f32(context, m, n, k, a.view(), b.view(), c.data(), c.ldc);
  const std::string diff = compare_bits(c, want);
  ASSERT_TRUE(diff.empty()) << describe(isa, m, n, k, threads, la, lb) << ": " << diff;

  const PackedB packed = pack_b_f32(isa, k, n, b.view());
  OutMatrix cp(m, n, pad);
  gemm_f32_packed(context, m, a.view(), packed, cp.data(), cp.ldc);
  const std::string diff_packed = compare_bits(cp, want);
  ASSERT_TRUE(diff_packed.empty()) << "packed B, " << describe(isa, m, n, k, threads, la, lb) << ": " << diff_packed;
}

TEST(GemmKernel, ExactEachDimensionSwept0To70OnEveryPath) {
  for (const Isa isa : gemm_variant_paths()) {
    std::mt19937 rng(1234 + static_cast<unsigned>(isa));
    std::uniform_int_distribution<std::size_t> other(0, 70);
    for (int dim = 0; dim < 3; ++dim) {
      for (std::size_t size = 0; size <= 70; ++size) {
        std::size_t s[3] = {other(rng), other(rng), other(rng)};
        s[dim] = size;
        check_exact(isa, nullptr, s[0], s[1], s[2], rng, 0.02);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(GemmKernel, ExactRandomTriplesWithManySpecialValues) {
  for (const Isa isa : gemm_variant_paths()) {
    std::mt19937 rng(99 + static_cast<unsigned>(isa));
    std::uniform_int_distribution<std::size_t> size(0, 70);
    for (int trial = 0; trial < 150; ++trial) {
      check_exact(isa, nullptr, size(rng), size(rng), size(rng), rng, trial % 3 == 0 ? 0.3 : 0.05);
      if (HasFatalFailure()) return;
    }
  }
}

// Several tiles in each direction and several k-blocks (of the path's KC: 256, or 512 on AVX-512,
// where k = 513 to 1400 make two or three), on 1 and 2 threads: the second
// k-block continues from the stored C, the last makes NaN canonical, and tiles run on both
// threads (the estimate is far above the pool's 80 000 ns per thread). The k = 16 and 24 shapes
// get tiles wider than the path's NC (tile_shape), with a ragged last tile, B packed (m > MC) or
// read in place (m <= MC). With B packed once, m > MC takes the wide bands of gemm.cpp
// (wide_band_shape): one of 132 rows for 128, two of 156 for 300, three of 180 (the last 177)
// for 537 on AVX-512. 512 x 49 x 1400 is a large product (2^25 multiply-adds or more) cut into at
// least 16 tiles: bands of 24 rows on AVX-512, the last one 8 rows.
TEST(GemmKernel, ExactMultipleTilesAndKBlocksOnOneAndTwoThreads) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.ExactMultipleTilesAndKBlocksOnOneAndTwoThreads");
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  const std::size_t shapes[][3] = {{200, 300, 600}, {97, 129, 257}, {193, 250, 513}, {130, 17, 1030},
                                   {5, 400, 300},   {100, 1500, 16}, {90, 1300, 24}, {200, 49, 600}, {192, 529, 300},
                                   {128, 200, 300}, {300, 70, 520}, {537, 40, 260}, {512, 49, 1400},
                                   {100, 196, 1100}, {130, 35, 530}};
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      for (ThreadPool* pool : {&one, &two}) {
        std::mt19937 rng(7 + static_cast<unsigned>(s[0] * 31 + s[2]));  // same inputs for both pools
        // About one special value per five outputs' sums: at one in a hundred over k = 600 nearly
        // every output was NaN, which any wrong A row or B column reproduces.
        check_exact(isa, pool, s[0], s[1], s[2], rng, std::min(0.01, 0.1 / static_cast<double>(s[2])));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Special values only: every stored NaN must be 0x7FC00000, infinities and zeros per IEEE.
TEST(GemmKernel, ExactOnlySpecialValues) {
  for (const Isa isa : gemm_variant_paths()) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 60; ++trial) {
      std::uniform_int_distribution<std::size_t> size(1, 40);
      check_exact(isa, nullptr, size(rng), size(rng), size(rng), rng, 1.0);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(GemmKernel, KZeroGivesPositiveZero) {
  for (const Isa isa : gemm_variant_paths()) {
    for (const bool exact : {true, false}) {
      OutMatrix c(7, 19, 2);
      const float dummy = 1.0f;
      gemm_f32(KernelContext{isa, exact, nullptr}, 7, 19, 0, MatrixView{&dummy, 0, 1}, MatrixView{&dummy, 0, 1},
               c.data(), c.ldc);
      for (std::size_t i = 0; i < 7; ++i) {
        for (std::size_t j = 0; j < 19; ++j) ASSERT_EQ(bits_of(c.at(i, j)), 0u) << isa_name(isa);
      }
      ASSERT_EQ(c.stray_writes(), "");
    }
  }
}

// Products whose exact sum is -0 must give +0 (exact-mode.md rule 3): -1 * +0 added to +0.
TEST(GemmKernel, NegativeZeroProductsSumToPositiveZero) {
  for (const Isa isa : gemm_variant_paths()) {
    for (const bool exact : {true, false}) {
      const std::vector<float> a(3 * 5, -1.0f), b(5 * 4, 0.0f);
      std::vector<float> c(3 * 4, 1.0f);
      gemm_f32(KernelContext{isa, exact, nullptr}, 3, 4, 5, MatrixView{a.data(), 5, 1}, MatrixView{b.data(), 4, 1},
               c.data(), 4);
      for (const float v : c) ASSERT_EQ(bits_of(v), 0u) << isa_name(isa) << (exact ? " exact" : " fast");
    }
  }
}

// kernels-gemm.md, "Fast mode": |c - exact| <= k * u * sum |a_p * b_p| (+ 1e-30 for the
// subnormal range), against a double-precision product; and the same bits on 1 and 2 threads.
TEST(GemmKernel, FastWithinBoundAndIndependentOfThreads) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.FastWithinBoundAndIndependentOfThreads");
  ThreadPool one(1), two(2, ThreadPool::Sharing::Always);
  const std::size_t shapes[][3] = {{1, 1, 1},    {3, 5, 7},     {70, 70, 70},   {13, 64, 300},
                                   {200, 300, 600}, {97, 129, 257}, {31, 250, 1030}, {97, 1200, 16}};
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], k = s[2];
      std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 11 + k));
      Values values{rng, 0.0};
      const Layout la = random_layout(rng), lb = random_layout(rng);
      const StridedMatrix a = make_matrix(m, k, la, values);
      const StridedMatrix b = make_matrix(k, n, lb, values);
      OutMatrix c1(m, n, 1), c2(m, n, 1);
      gemm_f32(KernelContext{isa, false, &one}, m, n, k, a.view(), b.view(), c1.data(), c1.ldc);
      gemm_f32(KernelContext{isa, false, &two}, m, n, k, a.view(), b.view(), c2.data(), c2.ldc);
      ASSERT_EQ(c1.storage.size(), c2.storage.size());
      ASSERT_EQ(std::memcmp(c1.storage.data(), c2.storage.data(), c1.storage.size() * sizeof(float)), 0)
          << "fast mode differs between 1 and 2 threads: " << describe(isa, m, n, k, 2, la, lb);
      ASSERT_EQ(c1.stray_writes(), "");
      const double u = std::ldexp(1.0, -24);
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          double sum = 0.0, magnitude = 0.0;
          for (std::size_t p = 0; p < k; ++p) {
            const double prod = static_cast<double>(a.at(i, p)) * static_cast<double>(b.at(p, j));
            sum += prod;
            magnitude += std::fabs(prod);
          }
          const double bound = static_cast<double>(k) * u * magnitude + 1e-30;
          ASSERT_LE(std::fabs(static_cast<double>(c1.at(i, j)) - sum), bound)
              << describe(isa, m, n, k, 1, la, lb) << " at (" << i << "," << j << ")";
        }
      }
    }
  }
}

// Fast mode with a NaN or infinite input still gives NaN where the double product does.
TEST(GemmKernel, FastPropagatesNaN) {
  for (const Isa isa : gemm_variant_paths()) {
    std::vector<float> a(4 * 6, 1.0f), b(6 * 9, 0.5f);
    a[2 * 6 + 3] = std::numeric_limits<float>::quiet_NaN();
    b[1 * 9 + 4] = std::numeric_limits<float>::infinity();
    std::vector<float> c(4 * 9);
    gemm_f32(KernelContext{isa, false, nullptr}, 4, 9, 6, MatrixView{a.data(), 6, 1}, MatrixView{b.data(), 9, 1},
             c.data(), 9);
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t j = 0; j < 9; ++j) {
        const float v = c[i * 9 + j];
        if (i == 2) {
          EXPECT_TRUE(std::isnan(v)) << isa_name(isa);
        } else if (j == 4) {
          EXPECT_TRUE(std::isinf(v) && v > 0) << isa_name(isa);
        } else {
          EXPECT_EQ(v, 3.0f) << isa_name(isa);
        }
      }
    }
  }
}

// The epilogue runs once per finished tile and sees final values: every output exactly once.
struct EpilogueLog {
  std::vector<int> visits;
  std::vector<float> seen;
  std::size_t n = 0;
  std::mutex mutex;
};

void record_tile(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col, std::size_t rows,
                 std::size_t cols) {
  auto* log = static_cast<EpilogueLog*>(const_cast<void*>(state));
  std::lock_guard<std::mutex> lock(log->mutex);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < cols; ++j) {
      ++log->visits[(row + r) * log->n + col + j];
      log->seen[(row + r) * log->n + col + j] = c[static_cast<std::ptrdiff_t>(r) * ldc + static_cast<std::ptrdiff_t>(j)];
    }
  }
}

TEST(GemmKernel, EpilogueSeesEveryOutputOnceWithItsFinalValue) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.EpilogueSeesEveryOutputOnceWithItsFinalValue");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  // {200, 49, 300} and {30, 50, 600}: the rows-first bands of the last k-block (gemm.cpp run_block)
  // with a ragged last strip whose one or two last columns go to the column kernel (run_rows).
  const std::size_t shapes[][3] = {{1, 1, 1},     {45, 70, 3},  {200, 300, 600}, {9, 140, 0},
                                   {100, 1100, 16}, {200, 49, 300}, {30, 50, 600}};
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], k = s[2];
      std::mt19937 rng(3);
      // Special values only where k is short: with one in a hundred over k = 300 nearly every
      // output is NaN, and a tile reading the wrong A rows would still match.
      Values values{rng, k <= 16 ? 0.01 : 0.0};
      const StridedMatrix a = make_matrix(m, k, Layout::RowMajor, values);
      const StridedMatrix b = make_matrix(k, n, Layout::RowMajor, values);
      const std::vector<float> want = naive_exact(a, b);
      for (const bool packed : {false, true}) {
        EpilogueLog log;
        log.n = n;
        log.visits.assign(m * n, 0);
        log.seen.assign(m * n, 0.0f);
        const GemmEpilogue epilogue{record_tile, &log};
        OutMatrix c(m, n, 3);
        const KernelContext context{isa, true, &two};
        if (packed) {
          gemm_f32_packed(context, m, a.view(), pack_b_f32(isa, k, n, b.view()), c.data(), c.ldc, &epilogue);
        } else {
          gemm_f32(context, m, n, k, a.view(), b.view(), c.data(), c.ldc, &epilogue);
        }
        for (std::size_t idx = 0; idx < m * n; ++idx) {
          ASSERT_EQ(log.visits[idx], 1) << isa_name(isa) << " output " << idx;
          ASSERT_EQ(bits_of(log.seen[idx]), bits_of(want[idx])) << isa_name(isa) << " output " << idx;
        }
      }
    }
  }
}

// GemmEpilogue::store (gemm.hpp): in fast mode the AVX-512 path applies the bias and the activation
// in the stores of its full 12 x 32 blocks (the store kernel) and `apply` on the other blocks. The
// result must be, bit for bit, the product without an epilogue followed by `apply`'s steps, written
// here in scalar code from spec/ops/elementwise.md: v + bias[row] (one rounded addition), then Relu
// (v > 0 ? v : +0), Clip (below alpha -> alpha, then above beta -> beta) or LeakyRelu (v < 0 ?
// alpha * v : v), with or without a residual added after the bias (then a NaN stored as 0x7FC00000
// even without an activation, as the Add's element-wise kernel stores it), an activation's NaN
// stored as 0x7FC00000. A bias alone leaves a NaN sum as the
// addition gives it, and which NaN operand's payload an addition keeps when both are NaN depends on
// the operand order the compiler picks for a commutative addition (GCC swaps them, in the vector
// code as in this test's), which fast mode does not fix: there a NaN must stay a NaN.
// Shapes with full and ragged row strips and column strips, k over several k-blocks, B packed and
// in place, special values in A, B and the bias, 1 and 2 threads. HardSwish is written out here too
// (x * clamp(x * 0.16666667 + 0.5, 0, 1), each step rounded, canonical NaN); SiLU's oracle is the
// separate nodes' kernels on the same path: the fast Sigmoid's element-wise kernel, then the Mul's.
struct StoreCase {
  GemmStoreOps ops;
  std::size_t n = 0;
  Isa isa = Isa::Scalar;
};

float silu_by_the_separate_kernels(Isa isa, float v) {
  namespace ew = onemodel::opt::ew;
  float gate = 0.0f, product = 0.0f;
  ew::unary_f32_run(isa, ew::for_mode(ew::UnaryArgs{ew::UnaryOp::Sigmoid}, false), &v, &gate, 1);
  ew::binary_f32_run(isa, ew::BinaryOp::Mul, &v, 1, &gate, 1, &product, 1);
  return product;
}

float store_step(const GemmStoreOps& ops, Isa isa, float v, std::size_t row, std::size_t col) {
  v = v + ops.bias[row];
  if (ops.residual != nullptr) v = v + ops.residual[row * ops.residual_ld + col];
  if (!ops.activate) return ops.residual != nullptr && std::isnan(v) ? from_bits(0x7FC00000u) : v;
  float r = v;
  switch (ops.activation) {
    case ew::UnaryOp::Relu: r = v > 0.0f ? v : 0.0f; break;
    case ew::UnaryOp::Clip:
      r = v < ops.alpha ? ops.alpha : v;
      r = r > ops.beta ? ops.beta : r;
      break;
    case ew::UnaryOp::LeakyRelu: r = v < 0.0f ? ops.alpha * v : v; break;
    case ew::UnaryOp::HardSwish: {
      float gate = v * 0.16666667f;
      gate = gate + 0.5f;
      gate = gate < 0.0f ? 0.0f : gate;
      gate = gate > 1.0f ? 1.0f : gate;
      r = v * gate;
      break;
    }
    case ew::UnaryOp::Silu: r = silu_by_the_separate_kernels(isa, v); break;
    default: break;
  }
  return std::isnan(v) || std::isnan(r) ? from_bits(0x7FC00000u) : r;
}

void apply_store_case(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col,
                      std::size_t rows, std::size_t cols) {
  const auto& sc = *static_cast<const StoreCase*>(state);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < cols; ++j) {
      float& v = c[static_cast<std::ptrdiff_t>(r) * ldc + static_cast<std::ptrdiff_t>(j)];
      v = store_step(sc.ops, sc.isa, v, row + r, col + j);
    }
  }
}

TEST(GemmKernel, StoreKernelsGiveTheEpiloguesBitsInFastMode) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.StoreKernelsGiveTheEpiloguesBitsInFastMode");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  const std::size_t shapes[][3] = {{48, 300, 16}, {100, 70, 600}, {24, 64, 1100}, {13, 33, 40},
                                   {12, 32, 5},   {200, 49, 300}, {96, 196, 64},  {36, 1000, 24}};
  const ew::UnaryOp kinds[] = {ew::UnaryOp::Relu, ew::UnaryOp::Clip, ew::UnaryOp::LeakyRelu,
                               ew::UnaryOp::HardSwish, ew::UnaryOp::Silu};
  constexpr int kKinds = 5;
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], k = s[2];
      std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 7 + k));
      Values values{rng, k <= 64 ? 0.01 : 0.0};
      const StridedMatrix a = make_matrix(m, k, Layout::RowMajor, values);
      const StridedMatrix b = make_matrix(k, n, Layout::RowMajor, values);
      std::vector<float> bias(m), residual(m * (n + 5));
      Values bias_values{rng, 0.1};
      for (float& v : bias) v = bias_values.next();
      for (float& v : residual) v = bias_values.next();
      for (int variant = 0; variant < 2 * (kKinds + 1); ++variant) {
        const int kind = variant % (kKinds + 1);  // 0: no activation
        StoreCase sc;
        sc.n = n;
        sc.isa = isa;
        sc.ops.bias = bias.data();
        if (variant > kKinds) {
          sc.ops.residual = residual.data();
          sc.ops.residual_ld = n + 5;
        }
        sc.ops.activate = kind > 0;
        if (kind > 0) sc.ops.activation = kinds[kind - 1];
        sc.ops.alpha = kind == 2 ? -0.25f : 0.125f;
        sc.ops.beta = 0.5f;
        sc.ops.fast = true;
        for (const bool packed : {false, true}) {
          for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
            const KernelContext context{isa, false, pool};
            const PackedB packed_b = pack_b_f32(isa, k, n, b.view());
            OutMatrix plain(m, n, 3), fused(m, n, 3);
            const GemmEpilogue epilogue{apply_store_case, &sc, nullptr, &sc.ops};
            if (packed) {
              gemm_f32_packed(context, m, a.view(), packed_b, plain.data(), plain.ldc);
              gemm_f32_packed(context, m, a.view(), packed_b, fused.data(), fused.ldc, &epilogue);
            } else {
              gemm_f32(context, m, n, k, a.view(), b.view(), plain.data(), plain.ldc);
              gemm_f32(context, m, n, k, a.view(), b.view(), fused.data(), fused.ldc, &epilogue);
            }
            std::size_t differing = 0;
            for (std::size_t i = 0; i < m; ++i) {
              for (std::size_t j = 0; j < n; ++j) {
                const float want = store_step(sc.ops, isa, plain.at(i, j), i, j);
                const float got = fused.at(i, j);
                const bool payload_free = !sc.ops.activate && sc.ops.residual == nullptr;
                const bool same = bits_of(want) == bits_of(got) || (payload_free && std::isnan(want) && std::isnan(got));
                differing += same ? 0u : 1u;
              }
            }
            EXPECT_EQ(differing, 0u) << isa_name(isa) << " " << m << "x" << n << "x" << k << " variant " << variant
                                     << (packed ? " packed" : " in place") << (pool != nullptr ? " 2 threads" : "");
            EXPECT_EQ(fused.stray_writes(), "") << isa_name(isa) << " " << m << "x" << n << "x" << k;
          }
        }
      }
    }
  }
}

// graph-runtime.md section 4: after the first calls of a shape, a call allocates nothing (the
// packing buffers are per thread and only grow), on 1 and 2 threads, packed B or not.
struct ThreadLog {
  std::mutex mutex;
  std::set<std::thread::id> ids;
};

void record_thread(const void* state, float*, std::ptrdiff_t, std::size_t, std::size_t, std::size_t, std::size_t) {
  auto* log = static_cast<ThreadLog*>(const_cast<void*>(state));
  std::lock_guard<std::mutex> lock(log->mutex);
  log->ids.insert(std::this_thread::get_id());
}

TEST(GemmKernel, SteadyStateCallsAllocateNothing) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.SteadyStateCallsAllocateNothing");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  // m = 200 packs B; the small-m call below reads it in place (and packs its ragged strip).
  const std::size_t m = 200, n = 300, k = 600, small_m = 20;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  ThreadLog log;
  const GemmEpilogue epilogue{record_thread, &log};
  {
    // The set's nodes are allocated here, before any counting.
    std::lock_guard<std::mutex> lock(log.mutex);
    log.ids.insert(std::this_thread::get_id());
  }
  for (const Isa isa : gemm_variant_paths()) {
    const PackedB packed = pack_b_f32(isa, k, n, MatrixView{b.data(), static_cast<std::ptrdiff_t>(n), 1});
    for (const bool exact : {true, false}) {
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        const KernelContext context{isa, exact, pool};
        auto call = [&] {
          gemm_f32(context, m, n, k, MatrixView{a.data(), static_cast<std::ptrdiff_t>(k), 1},
                   MatrixView{b.data(), static_cast<std::ptrdiff_t>(n), 1}, c.data(), static_cast<std::ptrdiff_t>(n),
                   &epilogue);
          gemm_f32_packed(context, m, MatrixView{a.data(), static_cast<std::ptrdiff_t>(k), 1}, packed, c.data(),
                          static_cast<std::ptrdiff_t>(n), &epilogue);
          gemm_f32(context, small_m, n, k, MatrixView{a.data(), static_cast<std::ptrdiff_t>(k), 1},
                   MatrixView{b.data(), static_cast<std::ptrdiff_t>(n), 1}, c.data(), static_cast<std::ptrdiff_t>(n),
                   &epilogue);
        };
        // Warm up until the worker has run tiles too (so its buffers have grown), or give up
        // waiting for it on a very busy machine.
        for (int i = 0; i < 4 || (pool != nullptr && log.ids.size() < 2 && i < 2000); ++i) call();
        const long before = g_allocations.load();
        for (int i = 0; i < 5; ++i) call();
        EXPECT_EQ(g_allocations.load() - before, 0) << isa_name(isa) << (pool ? " 2 threads" : " 1 thread");
      }
    }
  }
}

// With a single tile row (m <= MC) and contiguous rows, B is read in place rather than packed
// (gemm.cpp, reads_b_in_place); the ragged last strip is packed alone. Fast mode, where the
// naive-loop tests cannot check bits: the in-place product must equal the product with B packed
// whole (gemm_f32_packed always reads packed strips), bit for bit, on every path, 1 and 2 threads,
// with n ragged against every NR, k over several k-blocks, and a row stride wider than n. With
// more rows (m > MC) and a small B (k * n <= 2^16), a pool of two threads packs B per tile
// (gemm.cpp, packs_b_per_tile) and one thread packs it whole: both against B packed beforehand.
TEST(GemmKernel, BReadInPlaceEqualsPackedBBitForBit) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("GemmKernel.BReadInPlaceEqualsPackedBBitForBit");
  ThreadPool two(2, ThreadPool::Sharing::Always);
  std::mt19937 rng(20261129);
  Values values{rng, 0.0005};  // k up to 513: a higher rate leaves nearly every output NaN
  const std::size_t shapes[][3] = {{1, 1, 1}, {4, 37, 5}, {12, 100, 300}, {16, 1000, 96}, {24, 257, 513},
                                   {96, 70, 260}, {5, 33, 1}, {128, 128, 64}, {197, 64, 197}, {300, 40, 300}};
  for (const Isa isa : gemm_variant_paths()) {
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], k = s[2];
      const StridedMatrix a = make_matrix(m, k, Layout::RowMajor, values);
      const StridedMatrix b = make_matrix(k, n, Layout::RowMajor, values);
      const PackedB packed = pack_b_f32(isa, k, n, b.view());
      for (const bool exact : {false, true}) {
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
          const KernelContext context{isa, exact, pool};
          std::vector<float> in_place(m * n, 1.0f), whole(m * n, 2.0f);
          gemm_f32(context, m, n, k, a.view(), b.view(), in_place.data(), static_cast<std::ptrdiff_t>(n));
          gemm_f32_packed(context, m, a.view(), packed, whole.data(), static_cast<std::ptrdiff_t>(n));
          std::size_t differing = 0;
          for (std::size_t i = 0; i < m * n; ++i) differing += bits_of(in_place[i]) != bits_of(whole[i]);
          EXPECT_EQ(differing, 0u) << isa_name(isa) << (exact ? " exact " : " fast ") << m << "x" << n << "x" << k
                                   << (pool ? " 2 threads" : " 1 thread");
        }
      }
    }
  }
}

// Fast mode on the paths with a fused multiply-add is, per output, one fused multiply-add per step
// of k from +0 (kernels-gemm.md, "Fast mode"; gemm_micro.hpp): a std::fma loop gives its bits,
// NaN aside. Thin shapes (m = 1, n = 1: the edge kernels of gemm_edge_avx512.cpp), ragged strips
// ending in 1 to 4 columns (n = 19, 36, 67, 196: the column kernel for several columns; n = 49 to 52:
// 17 to 20 columns, the narrow tail kernel; n = 8, 37, 41, 44, 169: 5 to 12, the half-narrow
// kernel) and ragged others, k over several k-blocks, strided and transposed operands.
TEST(GemmKernel, FastEqualsAFusedLoopOnFmaPaths) {
  std::mt19937 rng(77);
  Values values{rng, 0.0};
  const std::size_t shapes[][3] = {{1, 1, 1},   {1, 70, 300}, {1, 1000, 96}, {1, 33, 513}, {70, 1, 300},
                                   {200, 1, 513}, {12, 1, 7},  {13, 2, 40},   {2, 45, 260}, {37, 50, 600},
                                   {40, 36, 600}, {100, 67, 1100}, {30, 196, 530}, {25, 19, 70},
                                   {13, 49, 1100}, {25, 51, 530}, {7, 52, 40},   {20, 41, 600},
                                   {13, 37, 530},  {30, 169, 70},  {11, 44, 520}, {12, 8, 300},
                                   // AVX2's 6 x 16 edges: short strips (rows 1 to 5 of 6), narrow
                                   // pieces and last columns (n % 16 of 1 to 15), two k-blocks.
                                   {5, 16, 300},   {4, 49, 520},   {1, 17, 40},   {7, 9, 70},
                                   {6, 12, 260},   {64, 49, 300},  {40, 196, 70}, {3, 30, 9}};
  for (const Isa isa : gemm_variant_paths()) {
    if (isa != Isa::Avx2 && isa != Isa::Avx512 && isa != Isa::Neon) continue;
    for (const auto& s : shapes) {
      const std::size_t m = s[0], n = s[1], k = s[2];
      for (const Layout layout : {Layout::RowMajor, Layout::Transposed}) {
        const StridedMatrix a = make_matrix(m, k, layout, values);
        const StridedMatrix b = make_matrix(k, n, layout == Layout::RowMajor ? Layout::RowMajor : Layout::Spread, values);
        std::vector<float> c(m * n, 7.0f);
        gemm_f32(KernelContext{isa, false, nullptr}, m, n, k, a.view(), b.view(), c.data(),
                 static_cast<std::ptrdiff_t>(n));
        std::size_t differing = 0;
        for (std::size_t i = 0; i < m; ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t p = 0; p < k; ++p) acc = std::fma(a.at(i, p), b.at(p, j), acc);
            differing += bits_of(acc) != bits_of(c[i * n + j]);
          }
        }
        EXPECT_EQ(differing, 0u) << isa_name(isa) << " " << m << "x" << n << "x" << k;
      }
    }
  }
}

// The registry (gemm_path.hpp; docs/design.md, "Kernel registry"): the list's form, and dispatch
// reading it: each path gets the first listed variant at or below its level that the CPU runs,
// the scalar path the scalar variant, the session's best path the first variant this CPU runs.
TEST(GemmRegistry, ListDrivesDispatch) {
  const std::span<const gemm::Path> list = gemm::variants();
  kernel_tests::expect_registry_form(list, "f32_gemm");
  EXPECT_EQ(gemm::path_for(Isa::Scalar).name, "f32_gemm_4x4__scalar");
  const gemm::Path* first_here = nullptr;
  for (const gemm::Path& variant : list) {
    if (first_here == nullptr && variant_runs_here(variant)) first_here = &variant;
  }
  ASSERT_NE(first_here, nullptr);
  const gemm::Path& best = gemm::path_for(available_isas().back());
  if (first_here->isa == Isa::Avx512 && avx512_exact_halves()) {
    // The AVX-512 variant with its exact kernels in 256-bit halves (gemm_path.cpp): the listed
    // variant's packing and fast kernels, other exact kernels.
    EXPECT_EQ(best.name, "f32_gemm_12x32__avx512_halves");
    EXPECT_EQ(best.isa, first_here->isa);
    EXPECT_EQ(best.mr, first_here->mr);
    EXPECT_EQ(best.nr, first_here->nr);
    EXPECT_EQ(best.mc, first_here->mc);
    EXPECT_EQ(best.nc, first_here->nc);
    EXPECT_EQ(best.pack_a, first_here->pack_a);
    EXPECT_EQ(best.fast, first_here->fast);
    EXPECT_NE(best.exact, first_here->exact);
    EXPECT_EQ(best.pair_exact, nullptr);
  } else {
    EXPECT_EQ(&best, first_here);
  }
  for (const Isa isa : available_isas()) {
    const gemm::Path& chosen = gemm::path_for(isa);
    EXPECT_LE(isa_level(chosen.isa), isa_level(isa)) << chosen.name << " on " << isa_name(isa);
    EXPECT_TRUE(isa_available(chosen.isa)) << chosen.name;
  }
  EXPECT_FALSE(gemm_variant_paths().empty());
}

// cpu_traits.hpp: only AMD family 0x19 (Zen 4) splits 512-bit instructions into halves; Zen 5
// (0x1A), earlier AMD families and Intel do not.
TEST(GemmRegistry, HalvesOnlyWhereTheCpuSplits512BitVectors) {
  EXPECT_TRUE(splits_512bit_vectors("AuthenticAMD", 0x19));
  EXPECT_FALSE(splits_512bit_vectors("AuthenticAMD", 0x1A));
  EXPECT_FALSE(splits_512bit_vectors("AuthenticAMD", 0x17));
  EXPECT_FALSE(splits_512bit_vectors("GenuineIntel", 0x19));
  EXPECT_FALSE(splits_512bit_vectors("GenuineIntel", 6));
  EXPECT_FALSE(splits_512bit_vectors("AuthenticAM", 0x19));
}

// ONEMODEL_AVX512_HALVES=0 and =1 decide the tuning, and "other" takes the one the CPU would not
// choose (the CTest runs *_avx512_other_halves test the second kernel only if it does); otherwise
// the CPU's vendor and family as Linux reports them in /proc/cpuinfo (an independent reading of
// CPUID), where that file exists. Until session 40 the test expected the CPU's own choice under
// "other" too; the runs are skipped without AVX-512, and sessions 34-39 had none, so the first
// AVX-512 machine since (an Intel Xeon) failed it.
TEST(GemmRegistry, HalvesSettingFollowsTheEnvironmentOrTheCpu) {
  const char* forced = std::getenv("ONEMODEL_AVX512_HALVES");
  const std::string value = forced != nullptr ? forced : "";
  if (value == "0") {
    EXPECT_FALSE(avx512_exact_halves());
    return;
  }
  if (value == "1") {
    EXPECT_TRUE(avx512_exact_halves());
    return;
  }
#if !defined(__x86_64__) && !defined(_M_X64)
  // Off x86 the library reads no CPUID and never chooses the halves by itself. The file cannot
  // be consulted here: under qemu-user or node it is the x86 host's, not this build's CPU.
  EXPECT_FALSE(avx512_exact_halves());
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor;
  long family = -1;
  while (std::getline(cpuinfo, line) && (vendor.empty() || family < 0)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(colon + 2);
    if (line.rfind("cpu family", 0) == 0) family = std::stol(line.substr(colon + 2));
  }
  if (vendor.empty() || family < 0) GTEST_SKIP() << "no x86 vendor and family in /proc/cpuinfo: not tested";
  // "other" (the ctest runs named *_avx512_other_halves) asks for the tuning this CPU would not
  // choose; any other value is ignored and the CPU decides.
  const bool cpu_choice = splits_512bit_vectors(vendor, static_cast<unsigned>(family));
  EXPECT_EQ(avx512_exact_halves(), value == "other" ? !cpu_choice : cpu_choice)
      << vendor << " family " << family << ", ONEMODEL_AVX512_HALVES=" << value;
#endif
}

TEST(GemmKernel, PackedBRefusesAnotherPath) {
  const auto isas = available_isas();
  if (isas.size() < 2) GTEST_SKIP() << "only one path on this machine";
  const std::vector<float> b(4, 1.0f), a(4, 1.0f);
  std::vector<float> c(4);
  const PackedB packed = pack_b_f32(isas[0], 2, 2, MatrixView{b.data(), 2, 1});
  EXPECT_THROW(gemm_f32_packed(KernelContext{isas[1], true, nullptr}, 2, MatrixView{a.data(), 2, 1}, packed, c.data(), 2),
               std::invalid_argument);
}

// The AVX-512 path (kernels-gemm.md, table under "Structure"): where the CPU has it, it is the
// default, ONEMODEL_ISA=avx2 caps below it and its packed B is in strips of NR = 32. Where the
// CPU lacks it the test is reported as skipped, never as a pass.
TEST(GemmKernel, Avx512PathWhereTheCpuHasIt) {
  if (!isa_available(Isa::Avx512)) GTEST_SKIP() << "AVX-512 path not available on this CPU: not tested";
  EXPECT_EQ(available_isas().back(), Isa::Avx512);
  EXPECT_EQ(isa_path_name(Isa::Avx512), "AVX-512");
  const char* saved = std::getenv("ONEMODEL_ISA");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("ONEMODEL_ISA", "avx2", 1);
  EXPECT_EQ(select_isa(), Isa::Avx2);
  ::setenv("ONEMODEL_ISA", "avx512", 1);
  EXPECT_EQ(select_isa(), Isa::Avx512);
  ::unsetenv("ONEMODEL_ISA");
  EXPECT_EQ(select_isa(), Isa::Avx512);
  if (saved != nullptr) ::setenv("ONEMODEL_ISA", saved_value.c_str(), 1);
  // One column of B over 3 rows of k fills one strip of 32, padded with +0.
  const std::vector<float> b = {1.0f, 2.0f, 3.0f};
  const PackedB packed = pack_b_f32(Isa::Avx512, 3, 1, MatrixView{b.data(), 1, 1});
  EXPECT_EQ(packed.isa(), Isa::Avx512);
  ASSERT_EQ(packed.size(), 3u * 32u);
  EXPECT_EQ(packed.data()[32], 2.0f);
  for (std::size_t j = 1; j < 32; ++j) {
    std::uint32_t pad = 1;
    std::memcpy(&pad, &packed.data()[j], sizeof pad);
    EXPECT_EQ(pad, 0u) << "column " << j;  // +0, not -0
  }
}

#if ONEMODEL_HAVE_RAPIDCHECK
// Property: random shapes (up to three tiles and two k-blocks), layouts and paths, exact mode,
// equal to the naive loop.
RC_GTEST_PROP(GemmProperty, ExactEqualsNaiveLoop, ()) {
  const auto isas = available_isas();
  const Isa isa = isas[*rc::gen::inRange<std::size_t>(0, isas.size())];
  const std::size_t m = *rc::gen::inRange<std::size_t>(0, 200);
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 260);
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, 520);
  const unsigned seed = *rc::gen::arbitrary<unsigned>();
  std::mt19937 rng(seed);
  Values values{rng, 0.02};
  const Layout la = random_layout(rng), lb = random_layout(rng);
  const StridedMatrix a = make_matrix(m, k, la, values);
  const StridedMatrix b = make_matrix(k, n, lb, values);
  const std::vector<float> want = naive_exact(a, b);
  OutMatrix c(m, n, 1);
  gemm_f32(KernelContext{isa, true, nullptr}, m, n, k, a.view(), b.view(), c.data(), c.ldc);
  const std::string diff = compare_bits(c, want);
  RC_ASSERT(diff == std::string());
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

}  // namespace
}  // namespace onemodel::opt
