// GEMM throughput (kernels-gemm.md, "Measuring exact against fast"): square float32 products on
// every instruction-set path this machine runs, fast and exact, 1 and 2 threads, as GFLOP/s and as
// a share of the nominal fused-multiply-add peak; then the MatMul override against the reference
// kernel. A measurement is the median over three repetitions of the mean time of calls run for at
// least 80 ms after two warm-up calls; buffers are allocated once, outside the timing; packing is
// inside it. Each line also gives the rate per CPU-second of the process (flops / CPU time), which
// other programs loading the machine disturb less than the wall-clock rate.
//
// Usage: bench_gemm [--sizes 256,512,...] [--isas scalar,sse,avx2,avx512] [--threads 1,2] [--no-matmul]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/support/timing.hpp"
#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace {

using onemodel::bench::measure;
using onemodel::bench::Timing;
using onemodel::opt::Isa;

// The nominal peak of one core of this machine (AMD EPYC, Zen 5, full-width 512-bit units):
// GHz x FMA ports x lanes x 2 flops (kernels-gemm.md, "Measuring exact against fast"), with the
// lanes of the path measured: 16 for AVX-512, 8 for AVX2, 4 for the 128-bit path, 1 for scalar.
constexpr double kGhz = 2.45;
constexpr double kFmaPorts = 2;

double lanes_of(Isa isa) {
  switch (onemodel::opt::isa_level(isa)) {
    case 0: return 1;
    case 1: return 4;
    case 2: return 8;
    default: return 16;
  }
}

double peak_per_core(Isa isa) { return kGhz * kFmaPorts * lanes_of(isa) * 2.0; }

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

void bench_kernels(const std::vector<std::size_t>& sizes, const std::vector<Isa>& isas, const std::vector<int>& threads) {
  std::printf("%-6s %-6s %-5s %-7s %10s %10s %8s %12s\n", "size", "path", "mode", "threads", "ms/call", "GFLOP/s",
              "%peak", "GFLOP/cpu-s");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (const std::size_t n : sizes) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (float& x : a) x = value(rng);
    for (float& x : b) x = value(rng);
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    for (const Isa isa : isas) {
      for (const bool exact : {false, true}) {
        for (const int t : threads) {
          onemodel::opt::ThreadPool pool(t);
          const onemodel::opt::KernelContext context{isa, exact, &pool};
          const onemodel::opt::MatrixView av{a.data(), static_cast<std::ptrdiff_t>(n), 1};
          const onemodel::opt::MatrixView bv{b.data(), static_cast<std::ptrdiff_t>(n), 1};
          const Timing timing = measure(
              [&] { onemodel::opt::gemm_f32(context, n, n, n, av, bv, c.data(), static_cast<std::ptrdiff_t>(n)); });
          const double gflops = flops / timing.wall * 1e-9;
          std::printf("%-6zu %-6s %-5s %-7d %10.3f %10.1f %7.0f%% %12.1f\n", n,
                      std::string(onemodel::opt::isa_name(isa)).c_str(), exact ? "exact" : "fast", t,
                      timing.wall * 1e3, gflops, 100.0 * gflops / (peak_per_core(isa) * t),
                      flops / timing.cpu * 1e-9);
          std::fflush(stdout);
        }
      }
    }
  }
}

// One MatMul node run through a kernel the way an engine runs it: infer, prepare with B constant,
// allocate, run (the same steps as diff/op_harness.cpp).
struct NodeRun {
  onemodel::IrNode node;
  std::unique_ptr<onemodel::NodeInfo> info;
  std::unique_ptr<onemodel::OpKernel> kernel;
  std::vector<onemodel::Tensor> inputs;
  std::vector<onemodel::Tensor> outputs;
  std::shared_ptr<const void> state;

  void prepare() {
    std::vector<onemodel::InferInput> described;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      described.push_back(onemodel::InferInput{true, inputs[i].dtype(), inputs[i].shape(), i > 0 ? &inputs[i] : nullptr});
    }
    std::vector<onemodel::InferOutput> stated(1);
    stated[0].wanted = true;
    onemodel::InferContext infer(*info, described, stated);
    kernel->infer(infer);
    outputs = {onemodel::Tensor::empty(stated[0].type, stated[0].shape)};
    state = kernel->prepare(infer);
  }
  void run() {
    onemodel::RunContext context(*info, inputs, outputs, nullptr, state.get());
    kernel->run(context);
  }
};

void bench_matmul_override(const std::vector<std::size_t>& sizes) {
  const Isa isa = onemodel::opt::select_isa();
  std::printf("\nMatMul override (%s, 1 thread, B constant) against the reference kernel, exact mode\n",
              std::string(onemodel::opt::isa_name(isa)).c_str());
  std::printf("%-6s %14s %14s %10s\n", "size", "reference ms", "override ms", "speed-up");
  onemodel::opt::ThreadPool pool(1);
  const onemodel::opt::OptimizedConfig config{isa, &pool};
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (const std::size_t n : sizes) {
    std::vector<float> a(n * n), b(n * n);
    for (float& x : a) x = value(rng);
    for (float& x : b) x = value(rng);
    const onemodel::Shape shape{static_cast<std::int64_t>(n), static_cast<std::int64_t>(n)};
    double ms[2] = {0, 0};
    for (int which = 0; which < 2; ++which) {
      NodeRun r;
      r.node.op_type = "MatMul";
      r.node.name = "matmul";
      r.node.opset = 13;
      r.node.inputs = {"a", "b"};
      r.node.outputs = {"c"};
      r.info = std::make_unique<onemodel::NodeInfo>(r.node, 13, onemodel::ExecutionMode::Exact);
      if (which == 0) {
        r.kernel = onemodel::find_op("", "MatMul", 13)->factory(*r.info);
      } else {
        r.kernel = onemodel::opt::find_optimized_op("", "MatMul", 13)->factory(*r.info, config);
      }
      r.inputs = {onemodel::Tensor::from_values<float>(onemodel::DType::F32, shape, std::span<const float>(a)),
                  onemodel::Tensor::from_values<float>(onemodel::DType::F32, shape, std::span<const float>(b))};
      r.prepare();
      ms[which] = measure([&] { r.run(); }).wall * 1e3;
    }
    std::printf("%-6zu %14.3f %14.3f %9.1fx\n", n, ms[0], ms[1], ms[0] / ms[1]);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {256, 512, 768, 1024, 1536, 2048};
  std::vector<Isa> isas(onemodel::opt::available_isas().begin(), onemodel::opt::available_isas().end());
  std::vector<int> threads = {1, 2};
  bool matmul = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string next = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--sizes") {
      sizes.clear();
      for (const auto& s : split(next)) sizes.push_back(static_cast<std::size_t>(std::stoul(s)));
      ++i;
    } else if (arg == "--isas") {
      isas.clear();
      for (const auto& s : split(next)) {
        for (const Isa isa : onemodel::opt::available_isas()) {
          if (onemodel::opt::isa_name(isa) == s) isas.push_back(isa);
        }
      }
      ++i;
    } else if (arg == "--threads") {
      threads.clear();
      for (const auto& s : split(next)) threads.push_back(std::stoi(s));
      ++i;
    } else if (arg == "--no-matmul") {
      matmul = false;
    } else {
      std::fprintf(stderr, "usage: bench_gemm [--sizes a,b] [--isas scalar,sse,avx2,avx512] [--threads 1,2] [--no-matmul]\n");
      return 2;
    }
  }
  std::printf("Assumed peak: %.2f GHz x %.0f FMA ports x lanes x 2 per core (AMD EPYC): %.1f GFLOP/s for AVX-512 "
              "(16 lanes), %.1f for AVX2 (8 lanes)\n",
              kGhz, kFmaPorts, peak_per_core(Isa::Avx512), peak_per_core(Isa::Avx2));
  std::printf("%%peak divides by that peak times the threads. The machine is shared: see GFLOP/cpu-s.\n\n");
  bench_kernels(sizes, isas, threads);
  if (matmul) bench_matmul_override({64, 128, 256, 512});
  return 0;
}
