// Integer product throughput (spec-source int8.md "Product kernel"; optimized/kernels/int8gemm):
// uint8 x int8 products of the shapes the dynamically quantized transformers run (M tokens x K
// hidden x N outputs) on every path this machine has, 1 and 2 threads, as giga multiply-adds per
// second, with B prepacked (a constant weight) and the float32 product of the same shape
// (exact-mode GEMM) beside it. Every micro kernel of each level is measured (AVX-512 with and
// without VNNI, NEON with and without SDOT), named in the path column. A measurement is bench/support/timing.hpp's (the median of three
// repetitions of calls run for at least 80 ms after warm-up); A's packing is inside the timing.
//
// The best single call is printed too (best ms): on a machine shared with other programs the
// minimum is the least disturbed figure.
//
// Usage: bench_int8_gemm [--shapes 128x768x768,...] [--threads 1,2]
//        bench_int8_gemm --micro     the micro kernels alone, in L1
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench/support/timing.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace {

using namespace onemodel;
using onemodel::opt::Isa;

struct ShapeMKN {
  std::size_t m, k, n;
};

std::vector<ShapeMKN> parse_shapes(const std::string& text) {
  std::vector<ShapeMKN> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    ShapeMKN s{};
    if (std::sscanf(item.c_str(), "%zux%zux%zu", &s.m, &s.k, &s.n) == 3) out.push_back(s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// The fastest single call of `calls` (after two warm-up calls): other programs sharing the machine
// only ever make a call slower, so the minimum is the least disturbed figure on a loaded machine.
double best_call(const std::function<void()>& call, int calls = 40) {
  call();
  call();
  double best = 1e30;
  for (int i = 0; i < calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// The core clock while running, in GHz: a chain of dependent one-cycle integer adds (x86-64;
// the best of 200 batches), so that the kernels' MAC per ns can be put against their MAC per cycle.
double measured_ghz() {
#if defined(__x86_64__)
  double best = 1e30;
  for (int batch = 0; batch < 200; ++batch) {
    std::uint64_t x = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i) {
      __asm__ volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 100000.0 / best * 1e-9;
#else
  return 0;
#endif
}

// The micro kernels alone, A and B panels of 64 pairs in L1 (the in-cache throughput): the best of
// 200 batches of 100 calls, in multiply-adds per nanosecond (per cycle at 1 GHz).
void micro_only() {
  const double ghz = measured_ghz();
  std::printf("clock (dependent adds): %.2f GHz\n", ghz);
  std::printf("micro kernel (64 pairs, in L1)\tMAC per ns (best)\tMAC per cycle\n");
  std::vector<std::int16_t> a(64 * 24 * 2, 3);
  std::vector<std::int8_t> b(64 * 64 * 2, -5);
  std::vector<std::int32_t> tile(12 * 32);
  for (Isa isa : opt::available_isas()) {
    for (const opt::int8::Path* path : opt::int8::variants_for(isa)) {
      if (path->micro == nullptr) continue;
      double best = 1e30;
      for (int batch = 0; batch < 200; ++batch) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 100; ++i) path->micro(64, a.data(), b.data(), tile.data());
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      const double macs = 100.0 * 64 * 2 * static_cast<double>(path->mr * path->nr);
      std::printf("%s\t%.1f\t%.1f\n", path->name, macs / best * 1e-9, ghz > 0 ? macs / best * 1e-9 / ghz : 0.0);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<ShapeMKN> shapes = {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}, {512, 768, 768}};
  std::vector<int> threads = {1, 2};
  if (argc == 2 && std::string(argv[1]) == "--micro") {
    micro_only();
    return 0;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--shapes") shapes = parse_shapes(argv[i + 1]);
    if (flag == "--threads") {
      threads.clear();
      for (char c : std::string(argv[i + 1])) {
        if (c >= '1' && c <= '9') threads.push_back(c - '0');
      }
    }
  }
  std::mt19937 rng(5);
  // cpu ms: process CPU time per call (all threads), which other programs loading the machine
  // disturb less than the wall clock; GMAC/cpu-s: multiply-adds per CPU second.
  std::printf("shape(MxKxN)\tpath\tthreads\tint8 ms\tint8 GMAC/s\tint8 cpu ms\tGMAC/cpu-s\tbest ms\tbest GMAC/s\tfloat32 exact ms\tratio\n");
  for (const ShapeMKN& s : shapes) {
    std::vector<std::uint8_t> a(s.m * s.k), b(s.k * s.n);
    for (auto& v : a) v = static_cast<std::uint8_t>(rng());
    for (auto& v : b) v = static_cast<std::uint8_t>(rng());
    std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf(s.m * s.n);
    std::vector<std::int32_t> c(s.m * s.n);
    const std::int32_t za = 131, zb = 3;
    for (Isa isa : opt::available_isas()) {
      const opt::int8::PackedB packed = opt::int8::pack_b(opt::int8::Operand{b.data(), true, s.n}, s.k, s.n, isa);
      const opt::PackedB packed_f = opt::pack_b_f32(isa, s.k, s.n, opt::MatrixView{bf.data(), static_cast<std::ptrdiff_t>(s.n), 1});
      for (int t : threads) {
        opt::ThreadPool pool(t);
        const opt::KernelContext kc{isa, true, &pool};
        const bench::Timing tf = bench::measure([&] {
          opt::gemm_f32_packed(kc, s.m, opt::MatrixView{af.data(), static_cast<std::ptrdiff_t>(s.k), 1}, packed_f, cf.data(),
                               static_cast<std::ptrdiff_t>(s.n));
        });
        for (const opt::int8::Path* path : opt::int8::variants_for(isa)) {
          const bench::Timing ti = bench::measure([&] {
            opt::int8::gemm_on(*path, s.m, opt::int8::Operand{a.data(), false, s.k}, {&za, 1}, packed, {&zb, 1}, c.data(), s.n,
                               &pool);
          });
          const double best = best_call([&] {
            opt::int8::gemm_on(*path, s.m, opt::int8::Operand{a.data(), false, s.k}, {&za, 1}, packed, {&zb, 1}, c.data(), s.n,
                               &pool);
          });
          const double macs = static_cast<double>(s.m) * static_cast<double>(s.k) * static_cast<double>(s.n);
          std::printf("%zux%zux%zu\t%s\t%d\t%.3f\t%.1f\t%.3f\t%.1f\t%.3f\t%.1f\t%.3f\t%.2f\n", s.m, s.k, s.n, path->name, t,
                      ti.wall * 1e3, macs / ti.wall * 1e-9, ti.cpu * 1e3, macs / ti.cpu * 1e-9, best * 1e3, macs / best * 1e-9,
                      tf.wall * 1e3, ti.wall / tf.wall);
        }
      }
    }
  }
  return 0;
}
