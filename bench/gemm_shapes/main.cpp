// Products of the shapes models run, as a model runs them: A (the activations, m x k) against B
// packed once (the weights, k x n, gemm_f32_packed), with B cycled through several packed copies
// so that, as between the layers of a model, a call finds none of its weights in the caches.
// Prints microseconds per call (median repetition, bench/support/timing.hpp) and GFLOP/s per
// thread, for the path this machine selects (or ONEMODEL_ISA), fast and exact, at each thread
// count. A measurement, never a test; record the CPU with its figures.
//
// Usage: bench_gemm_shapes [--shapes 197x384x1536,128x768x3072] [--threads 1,2] [--copies 8]
//                          [--modes fast,exact]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/support/timing.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace {

struct Shape {
  std::size_t m, n, k;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

std::size_t positive(const std::string& text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value == 0 || value > (1u << 20)) {
    std::fprintf(stderr, "bench_gemm_shapes: expected a positive size up to 2^20, got '%s'\n", text.c_str());
    std::exit(2);
  }
  return static_cast<std::size_t>(value);
}

Shape parse_shape(const std::string& text) {
  const std::vector<std::string> parts = split(text, 'x');
  if (parts.size() != 3) {
    std::fprintf(stderr, "bench_gemm_shapes: a shape is MxNxK, got '%s'\n", text.c_str());
    std::exit(2);
  }
  return Shape{positive(parts[0]), positive(parts[1]), positive(parts[2])};
}

void bench_shape(const Shape& s, const std::vector<int>& threads, const std::vector<bool>& modes, std::size_t copies) {
  const onemodel::opt::Isa isa = onemodel::opt::select_isa();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> a(s.m * s.k), c(s.m * s.n), b(s.k * s.n);
  for (float& x : a) x = value(rng);
  std::vector<onemodel::opt::PackedB> packed;
  for (std::size_t i = 0; i < copies; ++i) {
    for (float& x : b) x = value(rng);
    packed.push_back(onemodel::opt::pack_b_f32(isa, s.k, s.n, {b.data(), static_cast<std::ptrdiff_t>(s.n), 1}));
  }
  const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  for (const bool exact : modes) {
    for (const int t : threads) {
      onemodel::opt::ThreadPool pool(t);
      const onemodel::opt::KernelContext context{isa, exact, &pool};
      const onemodel::opt::MatrixView av{a.data(), static_cast<std::ptrdiff_t>(s.k), 1};
      std::size_t next = 0;
      const onemodel::bench::Timing timing = onemodel::bench::measure([&] {
        onemodel::opt::gemm_f32_packed(context, s.m, av, packed[next], c.data(), static_cast<std::ptrdiff_t>(s.n));
        next = (next + 1) % copies;
      });
      std::printf("%5zu x %5zu x %5zu  %-6s %-5s %d  %10.1f us  %7.1f GFLOP/s per thread\n", s.m, s.n, s.k,
                  std::string(onemodel::opt::isa_name(isa)).c_str(), exact ? "exact" : "fast", t, timing.wall * 1e6,
                  flops / timing.wall * 1e-9 / t);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes{{197, 384, 512}, {197, 384, 1536}, {197, 384, 3072}, {128, 768, 3072}, {128, 3072, 768}};
  std::vector<int> threads{1, 2};
  std::vector<bool> modes{false, true};
  std::size_t copies = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--shapes") {
      shapes.clear();
      for (const std::string& s : split(value, ',')) shapes.push_back(parse_shape(s));
    } else if (flag == "--threads") {
      threads.clear();
      for (const std::string& t : split(value, ',')) threads.push_back(static_cast<int>(positive(t)));
    } else if (flag == "--copies") {
      copies = positive(value);
    } else if (flag == "--modes") {
      modes.clear();
      for (const std::string& m : split(value, ',')) {
        if (m != "fast" && m != "exact") {
          std::fprintf(stderr, "bench_gemm_shapes: a mode is fast or exact, got '%s'\n", m.c_str());
          return 2;
        }
        modes.push_back(m == "exact");
      }
    } else {
      std::fprintf(stderr, "usage: bench_gemm_shapes [--shapes MxNxK,...] [--threads 1,2] [--copies 8] [--modes fast,exact]\n");
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: bench_gemm_shapes [--shapes MxNxK,...] [--threads 1,2] [--copies 8] [--modes fast,exact]\n");
    return 2;
  }
  for (const Shape& s : shapes) bench_shape(s, threads, modes, copies);
  return 0;
}
