// Convolution throughput (kernels-gemm.md "Measuring exact against fast"; kernels-depthwise.md
// "Measured"): measurements, never tests.
// 1. ResNet-50 3x3 layers as im2col + matrix product (conv2d_f32) against gemm_f32 at the same
//    M, N, K (B already laid out), fast and exact, per path, 1 thread: the ratio is the cost of
//    im2col and of the convolution's shapes.
// 2. The MobileNetV3-large depthwise layers: the direct kernel's GFLOP/s fast and exact, and the
//    Conv reference kernel's time for the same node (exact mode) with the speed-up.
// A measurement is the median over three repetitions of the mean time of calls run for at least
// 80 ms after two warm-up calls; buffers are allocated once, outside the timing. Other programs
// loading the machine lower the numbers; the CPU-time rate (flops / process CPU seconds) is
// printed alongside and is disturbed less.
//
// 3. --depthwise-blocked (after --threads N): the zoo's depthwise shapes, plane walk against the
//    channel-blocked kernel (depthwise_blocked.hpp), AVX-512 (else AVX2 on machines without it).
//
// 4. --stem (after --threads N): the networks' first layers (3 input channels), im2col + the product
//    with packed weights (conv2d_f32) against the direct stem kernel (conv_stem.hpp), AVX-512 and AVX2.
//
// Usage: bench_conv [--isas scalar,sse,avx2] [--threads N] [--no-reference] [--depthwise-blocked]
//        [--stem]
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/support/timing.hpp"
#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace {

using onemodel::bench::measure;
using onemodel::bench::Timing;
using onemodel::opt::Conv2dShape;
using onemodel::opt::Isa;
using onemodel::opt::KernelContext;

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Conv2dShape square(std::size_t cin, std::size_t cout, std::size_t groups, std::size_t size, std::size_t k,
                   std::size_t stride) {
  Conv2dShape s;
  s.in_channels = cin;
  s.out_channels = cout;
  s.groups = groups;
  s.in_h = s.in_w = size;
  s.kernel_h = s.kernel_w = k;
  s.stride_h = s.stride_w = stride;
  s.pad_top = s.pad_left = k / 2;
  s.out_h = s.out_w = (size + 2 * (k / 2) - k) / stride + 1;
  return s;
}

void bench_resnet(const std::vector<Isa>& isas, int threads) {
  std::printf("ResNet-50 3x3 layers: conv2d_f32 (im2col + gemm) vs gemm_f32 at the same M, N, K, %d thread(s)\n",
              threads);
  std::printf("%-22s %-6s %-5s %10s %10s %10s %8s\n", "layer", "path", "mode", "conv GF/s", "gemm GF/s", "conv cpuGF",
              "ratio");
  onemodel::opt::ThreadPool pool(threads);
  const Conv2dShape layers[] = {square(256, 256, 1, 14, 3, 1), square(64, 64, 1, 56, 3, 1)};
  for (const Conv2dShape& s : layers) {
    const std::size_t m = s.out_channels, n = s.out_plane(), k = s.in_channels * s.taps();
    const std::vector<float> x = random_values(s.in_channels * s.in_plane(), 1);
    const std::vector<float> w = random_values(m * k, 2);
    const std::vector<float> bias = random_values(m, 3);
    const std::vector<float> b = random_values(k * n, 4);
    std::vector<float> y(m * n), work(onemodel::opt::conv2d_workspace_floats(s));
    const double flops = 2.0 * static_cast<double>(m * n * k);
    char name[64];
    std::snprintf(name, sizeof name, "%zux%zux%zu->%zu 3x3", s.in_channels, s.in_h, s.in_w, s.out_channels);
    for (Isa isa : isas) {
      for (bool exact : {false, true}) {
        const KernelContext context{isa, exact, &pool};
        const Timing conv = measure([&] {
          onemodel::opt::conv2d_f32(context, s, x.data(), w.data(), bias.data(), y.data(), work.data());
        });
        const Timing gemm = measure([&] {
          onemodel::opt::gemm_f32(context, m, n, k, {w.data(), static_cast<std::ptrdiff_t>(k), 1},
                                  {b.data(), static_cast<std::ptrdiff_t>(n), 1}, y.data(),
                                  static_cast<std::ptrdiff_t>(n));
        });
        std::printf("%-22s %-6s %-5s %10.1f %10.1f %10.1f %7.2fx\n", name, std::string(onemodel::opt::isa_name(isa)).c_str(),
                    exact ? "exact" : "fast", flops / conv.wall * 1e-9, flops / gemm.wall * 1e-9,
                    flops / conv.cpu * 1e-9, conv.wall / gemm.wall);
        std::fflush(stdout);
      }
    }
  }
}

onemodel::IrAttribute int_attribute(const char* name, std::int64_t value) {
  onemodel::IrAttribute a;
  a.name = name;
  a.type = onemodel::AttrType::Int;
  a.i = value;
  return a;
}
onemodel::IrAttribute ints_attribute(const char* name, std::vector<std::int64_t> values) {
  onemodel::IrAttribute a;
  a.name = name;
  a.type = onemodel::AttrType::Ints;
  a.ints = std::move(values);
  return a;
}

// The Conv reference kernel run on one node the way an engine runs it (infer, allocate, run).
double reference_conv_seconds(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w) {
  onemodel::IrNode node;
  node.op_type = "Conv";
  node.name = "conv";
  node.opset = 11;
  node.inputs = {"x", "w"};
  node.outputs = {"y"};
  const auto k = static_cast<std::int64_t>(s.kernel_h);
  const auto st = static_cast<std::int64_t>(s.stride_h);
  const auto p = static_cast<std::int64_t>(s.pad_top);
  node.attributes = {int_attribute("group", static_cast<std::int64_t>(s.groups)), ints_attribute("strides", {st, st}),
                     ints_attribute("pads", {p, p, p, p})};
  const onemodel::NodeInfo info(node, 11, onemodel::ExecutionMode::Exact);
  auto kernel = onemodel::find_op("", "Conv", 11)->factory(info);
  const auto c = static_cast<std::int64_t>(s.in_channels), m = static_cast<std::int64_t>(s.out_channels);
  const auto h = static_cast<std::int64_t>(s.in_h);
  std::vector<onemodel::Tensor> inputs{
      onemodel::Tensor::from_values<float>(onemodel::DType::F32, onemodel::Shape{1, c, h, h}, std::span<const float>(x)),
      onemodel::Tensor::from_values<float>(onemodel::DType::F32, onemodel::Shape{m, 1, k, k}, std::span<const float>(w))};
  std::vector<onemodel::InferInput> described;
  for (const auto& t : inputs) described.push_back(onemodel::InferInput{true, t.dtype(), t.shape(), &t});
  std::vector<onemodel::InferOutput> stated(1);
  stated[0].wanted = true;
  onemodel::InferContext infer(info, described, stated);
  kernel->infer(infer);
  std::vector<onemodel::Tensor> outputs{onemodel::Tensor::empty(stated[0].type, stated[0].shape)};
  return measure([&] {
    onemodel::RunContext context(info, inputs, outputs, nullptr, nullptr);
    kernel->run(context);
  }, 0.05).wall;
}

void bench_depthwise(const std::vector<Isa>& isas, int threads, bool with_reference) {
  std::printf("\nMobileNetV3-large depthwise layers (kernels-depthwise.md), %d thread(s); reference: the Conv "
              "reference kernel, exact, 1 thread\n",
              threads);
  std::printf("%-22s %-6s %10s %10s %10s %12s %9s\n", "layer", "path", "fast GF/s", "exact GF/s", "exact cpuGF",
              "reference ms", "speed-up");
  onemodel::opt::ThreadPool pool(threads);
  struct Layer {
    std::size_t channels, size, k, stride;
  };
  const Layer layers[] = {{16, 112, 3, 1},  {64, 112, 3, 2},  {72, 56, 3, 1},  {72, 56, 5, 2},  {120, 28, 5, 1},
                          {240, 28, 3, 2},  {200, 14, 3, 1},  {672, 14, 3, 1}, {672, 14, 5, 2}, {960, 7, 5, 1}};
  for (const Layer& l : layers) {
    const Conv2dShape s = square(l.channels, l.channels, l.channels, l.size, l.k, l.stride);
    const std::vector<float> x = random_values(s.in_channels * s.in_plane(), 5);
    const std::vector<float> w = random_values(s.out_channels * s.taps(), 6);
    const std::vector<float> bias = random_values(s.out_channels, 7);
    std::vector<float> y(s.out_channels * s.out_plane());
    const double flops = 2.0 * static_cast<double>(s.out_channels * s.out_plane() * s.taps());
    char name[64];
    std::snprintf(name, sizeof name, "%zu %zux%zu/%zu @%zu", l.channels, l.k, l.k, l.stride, l.size);
    const double reference = with_reference ? reference_conv_seconds(s, x, w) : 0.0;
    for (Isa isa : isas) {
      Timing t[2];
      for (int exact = 0; exact < 2; ++exact) {
        const KernelContext context{isa, exact == 1, &pool};
        t[exact] = measure([&] {
          onemodel::opt::depthwise_conv2d_f32(context, s, x.data(), w.data(), bias.data(), y.data());
        });
      }
      std::printf("%-22s %-6s %10.1f %10.1f %10.1f %12.3f %8.1fx\n", name,
                  std::string(onemodel::opt::isa_name(isa)).c_str(), flops / t[0].wall * 1e-9,
                  flops / t[1].wall * 1e-9, flops / t[1].cpu * 1e-9, reference * 1e3,
                  with_reference ? reference / t[1].wall : 0.0);
      std::fflush(stdout);
    }
  }
}

#if defined(__x86_64__)
// The zoo's depthwise shapes (EfficientNet-B0, MnasNet, ConvNeXt-T, MobileNetV3): the plane walk
// against the channel-blocked kernel on the AVX-512 path (else the AVX2 path), microseconds per call
// (wall and process CPU), fast and exact; the rule in depthwise_takes_blocked comes from this table.
void bench_depthwise_blocked(int threads) {
  bool avx512 = false, avx2 = false;
  for (Isa isa : onemodel::opt::available_isas()) {
    avx512 = avx512 || isa == Isa::Avx512;
    avx2 = avx2 || isa == Isa::Avx2;
  }
  if (!avx512 && !avx2) return;
  const Isa isa = avx512 ? Isa::Avx512 : Isa::Avx2;
  std::printf("\nZoo depthwise shapes, %s, %d thread(s): plane walk vs channel-blocked, us per call "
              "(wall / cpu)\n", avx512 ? "AVX-512" : "AVX2", threads);
  std::printf("%-24s %5s %-6s %17s %17s %7s\n", "layer", "rule", "mode", "walk", "blocked", "ratio");
  onemodel::opt::ThreadPool pool(threads);
  struct Layer {
    std::size_t channels, size, k, stride, dilation;
  };
  const Layer layers[] = {{32, 112, 3, 1, 1},  {96, 112, 3, 2, 1},  {144, 56, 3, 1, 1}, {144, 56, 5, 2, 1},
                          {240, 28, 5, 1, 1},  {240, 28, 3, 2, 1},  {480, 14, 3, 1, 1}, {672, 14, 5, 1, 1},
                          {672, 14, 5, 2, 1},  {1152, 7, 5, 1, 1},  {1152, 7, 3, 1, 1}, {96, 56, 7, 1, 1},
                          {192, 28, 7, 1, 1},  {384, 14, 7, 1, 1},  {768, 7, 7, 1, 1},  {960, 14, 5, 1, 2},
                          {200, 14, 3, 1, 1},  {72, 28, 5, 1, 1},   {120, 28, 5, 1, 1}, {64, 112, 3, 2, 1},
                          {576, 14, 5, 2, 1},  {240, 28, 5, 2, 1},  {480, 14, 5, 1, 1}, {576, 14, 3, 1, 1}};
  for (const Layer& l : layers) {
    Conv2dShape s = square(l.channels, l.channels, l.channels, l.size, l.k, l.stride);
    s.dilation_h = s.dilation_w = l.dilation;
    s.pad_top = s.pad_left = l.dilation * (l.k / 2);
    s.out_h = s.out_w = (l.size + 2 * s.pad_top - l.dilation * (l.k - 1) - 1) / l.stride + 1;
    const std::vector<float> x = random_values(s.in_channels * s.in_plane(), 5);
    const std::vector<float> w = random_values(s.out_channels * s.taps(), 6);
    const std::vector<float> bias = random_values(s.out_channels, 7);
    std::vector<float> y(s.out_channels * s.out_plane());
    char name[64];
    std::snprintf(name, sizeof name, "%zu %zux%zu/%zu d%zu @%zu", l.channels, l.k, l.k, l.stride, l.dilation, l.size);
    for (int exact = 0; exact < 2; ++exact) {
      const KernelContext context{isa, exact == 1, &pool};
      const Timing walk = measure([&] {
        onemodel::opt::depthwise_walk_conv2d_f32(context, s, x.data(), w.data(), bias.data(), y.data());
      });
      const Timing blocked = measure([&] {
        if (avx512) {
          onemodel::opt::depthwise_blocked_conv2d_f32__avx512(context, s, x.data(), w.data(), bias.data(), y.data(),
                                                              nullptr);
        } else {
          onemodel::opt::depthwise_blocked_conv2d_f32__avx2(context, s, x.data(), w.data(), bias.data(), y.data(),
                                                            nullptr);
        }
      });
      const bool blocked_rule = onemodel::opt::depthwise_takes_blocked(isa, exact == 1, s);
      std::printf("%-24s %5s %-6s %8.1f /%7.1f %8.1f /%7.1f %7.2f\n", name, blocked_rule ? "blk" : "walk",
                  exact ? "exact" : "fast",
                  walk.wall * 1e6, walk.cpu * 1e6, blocked.wall * 1e6, blocked.cpu * 1e6, walk.cpu / blocked.cpu);
      std::fflush(stdout);
    }
  }
}

// On `isa` (AVX-512: conv_stem_f32__avx512; AVX2: its twin, conv_stem_f32__avx2).
void bench_stem_on(Isa isa, int threads) {
  std::printf("\nStem layers, %s, %d thread(s): im2col + product (packed weights) vs the direct stem "
              "kernel, us per call (wall / cpu)\n", std::string(onemodel::opt::isa_name(isa)).c_str(), threads);
  std::printf("%-24s %-6s %17s %17s %7s\n", "layer", "mode", "im2col", "direct", "ratio");
  onemodel::opt::ThreadPool pool(threads);
  struct Layer {
    std::size_t cout, k, stride, pad;
  };
  const Layer layers[] = {{64, 7, 2, 3}, {32, 3, 2, 1}, {64, 3, 2, 0}, {24, 3, 2, 1}, {16, 3, 2, 1}};
  for (const Layer& l : layers) {
    Conv2dShape s = square(3, l.cout, 1, 224, l.k, l.stride);
    s.pad_top = s.pad_left = l.pad;
    s.out_h = s.out_w = (224 + 2 * l.pad - l.k) / l.stride + 1;
    const std::vector<float> x = random_values(s.in_channels * s.in_plane(), 5);
    const std::vector<float> w = random_values(s.out_channels * s.in_channels * s.taps(), 6);
    const std::vector<float> bias = random_values(s.out_channels, 7);
    const auto packed = onemodel::opt::conv2d_pack_weights(isa, s, w.data());
    const std::vector<float> stem = onemodel::opt::conv_stem_pack_weights(isa, s, w.data());
    std::vector<float> workspace(onemodel::opt::conv2d_workspace_floats(s, true) + 1);
    std::vector<float> y(s.out_channels * s.out_plane());
    char name[64];
    std::snprintf(name, sizeof name, "3->%zu %zux%zu/%zu p%zu @224", l.cout, l.k, l.k, l.stride, l.pad);
    for (int exact = 0; exact < 2; ++exact) {
      const KernelContext context{isa, exact == 1, &pool};
      const Timing product = measure([&] {
        onemodel::opt::conv2d_f32(context, s, x.data(), nullptr, bias.data(), y.data(), workspace.data(), nullptr,
                                  packed.data());
      });
      const Timing direct = measure([&] {
        const auto kernel = isa == Isa::Avx512 ? onemodel::opt::conv_stem_f32__avx512 : onemodel::opt::conv_stem_f32__avx2;
        kernel(context, s, x.data(), stem.data(), bias.data(), y.data(), nullptr);
      });
      std::printf("%-24s %-6s %8.1f /%7.1f %8.1f /%7.1f %7.2f\n", name, exact ? "exact" : "fast", product.wall * 1e6,
                  product.cpu * 1e6, direct.wall * 1e6, direct.cpu * 1e6, product.cpu / direct.cpu);
      std::fflush(stdout);
    }
  }
}

void bench_stem(int threads) {
  for (Isa isa : onemodel::opt::available_isas()) {
    if (isa == Isa::Avx512 || isa == Isa::Avx2) bench_stem_on(isa, threads);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<Isa> isas(onemodel::opt::available_isas().begin(), onemodel::opt::available_isas().end());
  int threads = 1;
  bool with_reference = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--depthwise-blocked") == 0) {
#if defined(__x86_64__)
      bench_depthwise_blocked(threads);
#endif
      return 0;
    } else if (std::strcmp(argv[i], "--stem") == 0) {
#if defined(__x86_64__)
      bench_stem(threads);
#endif
      return 0;
    } else if (std::strcmp(argv[i], "--no-reference") == 0) {
      with_reference = false;
    } else if (std::strcmp(argv[i], "--isas") == 0 && i + 1 < argc) {
      const std::string wanted = argv[++i];
      std::vector<Isa> kept;
      for (Isa isa : isas) {
        if (wanted.find(std::string(onemodel::opt::isa_name(isa))) != std::string::npos) kept.push_back(isa);
      }
      isas = kept;
    }
  }
  bench_resnet(isas, threads);
  bench_depthwise(isas, threads, with_reference);
  return 0;
}
