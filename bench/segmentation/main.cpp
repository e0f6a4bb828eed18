// The layers of the segmentation heads that cost most (issue 15): (1) convolutions whose windows
// mostly reach padding (conv2d_regions.hpp): the tap-region products
// against the whole im2col product with packed weights (conv2d_f32), fast and exact, on the
// dilated layers of DeepLabV3-MobileNetV3 (ASPP rates 12, 24, 36 on 14x14) and FCN-ResNet50
// (dilation 2 and 4 on 16x16; the plan declines those, printed as "-"); (2) the bilinear
// half_pixel Resize of 21 class maps 14x14 -> 224x224 (DeepLabV3's last node) and 28x28 ->
// 224x224 (LR-ASPP's), exact-mode kernel (resize.hpp: no operation depends on the mode); (3) the
// depthwise layers on 14x14 and 7x7 maps, the dilated 5x5 ones among them.
// Measurements, never tests: timing as bench/support/timing.hpp (median of three, CPU time beside
// the wall time).
//
// Usage: bench_segmentation [--threads N] [--resize-only | --depthwise-only]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/support/timing.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv2d_regions.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/resize/resize.hpp"

namespace {

using onemodel::bench::measure;
using onemodel::bench::Timing;
using onemodel::opt::Conv2dShape;
using onemodel::opt::KernelContext;

struct Layer {
  const char* name;
  std::size_t cin, cout, size, dilation;
};

Conv2dShape dilated3x3(const Layer& l) {
  Conv2dShape s;
  s.in_channels = l.cin;
  s.out_channels = l.cout;
  s.in_h = s.in_w = s.out_h = s.out_w = l.size;
  s.kernel_h = s.kernel_w = 3;
  s.dilation_h = s.dilation_w = l.dilation;
  s.pad_top = s.pad_left = l.dilation;
  return s;
}

// half_pixel linear taps of one axis (ops-conv.md "Resize"), clamped at the borders; close
// enough to the reference's table for timing (the kernel's work does not depend on the values).
std::vector<onemodel::opt::resize::AxisTap> half_pixel_taps(std::int64_t in, std::int64_t out) {
  std::vector<onemodel::opt::resize::AxisTap> taps(static_cast<std::size_t>(out));
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  for (std::int64_t o = 0; o < out; ++o) {
    const float pos = std::clamp((static_cast<float>(o) + 0.5f) / scale - 0.5f, 0.0f, static_cast<float>(in - 1));
    const std::int64_t i0 = static_cast<std::int64_t>(std::floor(pos));
    auto& t = taps[static_cast<std::size_t>(o)];
    t.index0 = i0;
    t.index1 = std::min(i0 + 1, in - 1);
    t.weight1 = pos - static_cast<float>(i0);
    t.weight0 = 1.0f - t.weight1;
  }
  return taps;
}

void bench_resize(onemodel::opt::ThreadPool& pool, onemodel::opt::Isa isa) {
  std::printf("\n%-22s %18s %10s\n", "resize (21 planes)", "ms (wall / CPU)", "ns/output");
  for (std::int64_t in : {14, 28}) {
    onemodel::opt::resize::Resize2dShape s;
    s.planes = 21;
    s.in_h = s.in_w = in;
    s.out_h = s.out_w = 224;
    s.linear = true;
    const auto taps = half_pixel_taps(in, 224);
    std::vector<float> x(static_cast<std::size_t>(s.planes * in * in), 0.25f), y(static_cast<std::size_t>(21 * 224 * 224));
    const KernelContext context{isa, true, &pool};
    const Timing t = measure([&] { onemodel::opt::resize::resize_2d_f32(context, s, taps.data(), taps.data(), x.data(), y.data()); });
    std::printf("%3lldx%-3lld -> 224x224        %8.3f / %7.3f %10.2f\n", static_cast<long long>(in),
                static_cast<long long>(in), t.wall * 1e3, t.cpu * 1e3, t.cpu * 1e9 / static_cast<double>(y.size()));
  }
}

// The depthwise layers on 14x14 and 7x7 maps (the backbone's dilated 5x5 blocks at rate 2).
void bench_depthwise(onemodel::opt::ThreadPool& pool, onemodel::opt::Isa isa) {
  std::printf("\n%-22s %-5s %18s\n", "depthwise", "mode", "ms (wall / CPU)");
  struct Dw {
    const char* name;
    std::size_t channels, size, k, dilation;
  };
  const Dw layers[] = {{"960 5x5 d2 @14", 960, 14, 5, 2}, {"672 5x5 d2 @14", 672, 14, 5, 2},
                       {"672 3x3 @14", 672, 14, 3, 1}, {"960 5x5 @7", 960, 7, 5, 1}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (const Dw& l : layers) {
    Conv2dShape s;
    s.in_channels = s.out_channels = s.groups = l.channels;
    s.in_h = s.in_w = s.out_h = s.out_w = l.size;
    s.kernel_h = s.kernel_w = l.k;
    s.dilation_h = s.dilation_w = l.dilation;
    s.pad_top = s.pad_left = l.dilation * (l.k / 2);
    std::vector<float> x(s.in_channels * s.in_plane()), w(s.out_channels * s.taps()), bias(s.out_channels);
    for (float& v : x) v = d(rng);
    for (float& v : w) v = d(rng);
    for (float& v : bias) v = d(rng);
    std::vector<float> y(s.out_channels * s.out_plane());
    for (bool exact : {false, true}) {
      const KernelContext context{isa, exact, &pool};
      const Timing t = measure([&] {
        onemodel::opt::depthwise_conv2d_f32(context, s, x.data(), w.data(), bias.data(), y.data());
      });
      std::printf("%-22s %-5s %8.3f / %7.3f\n", l.name, exact ? "exact" : "fast", t.wall * 1e3, t.cpu * 1e3);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t threads = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = static_cast<std::size_t>(std::stoul(argv[i + 1]));
  }
  const Layer layers[] = {{"aspp-rate12", 960, 256, 14, 12}, {"aspp-rate24", 960, 256, 14, 24},
                          {"aspp-rate36", 960, 256, 14, 36}, {"fcn-layer3-d2", 256, 256, 16, 2},
                          {"fcn-layer4-d4", 512, 512, 16, 4}};
  onemodel::opt::ThreadPool pool(threads);
  const onemodel::opt::Isa isa = onemodel::opt::select_isa();
  std::printf("path %s, %zu thread(s); ms per call (wall / process CPU)\n", onemodel::opt::isa_name(isa).data(),
              threads);
  const std::string only = argc > 1 ? argv[argc - 1] : "";
  if (only != "--depthwise-only") bench_resize(pool, isa);
  if (only != "--resize-only") bench_depthwise(pool, isa);
  if (only == "--resize-only" || only == "--depthwise-only") return 0;
  std::printf("\n%-16s %-5s %18s %18s %8s\n", "layer", "mode", "im2col ms", "regions ms", "speedup");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (const Layer& l : layers) {
    const Conv2dShape s = dilated3x3(l);
    std::vector<float> x(s.in_channels * s.in_plane()), w(s.out_channels * s.in_channels * 9), bias(s.out_channels);
    for (float& v : x) v = d(rng);
    for (float& v : w) v = d(rng);
    for (float& v : bias) v = d(rng);
    std::vector<float> y(s.out_channels * s.out_plane());
    const auto packed = onemodel::opt::conv2d_pack_weights(isa, s, w.data());
    const auto plan = onemodel::opt::conv2d_plan_regions(isa, s, w.data());
    std::vector<float> work(plan.workspace_floats + 1);
    for (bool exact : {false, true}) {
      const KernelContext context{isa, exact, &pool};
      const Timing whole = measure([&] {
        onemodel::opt::conv2d_f32(context, s, x.data(), nullptr, bias.data(), y.data(), nullptr, nullptr,
                                  packed.data());
      });
      if (plan.empty()) {
        std::printf("%-16s %-5s %8.3f / %7.3f %18s %8s\n", l.name, exact ? "exact" : "fast", whole.wall * 1e3,
                    whole.cpu * 1e3, "-", "-");
        continue;
      }
      const Timing regions = measure([&] {
        onemodel::opt::conv2d_f32_regions(context, s, plan, x.data(), bias.data(), y.data(), work.data());
      });
      std::printf("%-16s %-5s %8.3f / %7.3f %8.3f / %7.3f %7.2fx\n", l.name, exact ? "exact" : "fast", whole.wall * 1e3,
                  whole.cpu * 1e3, regions.wall * 1e3, regions.cpu * 1e3, whole.cpu / regions.cpu);
    }
  }
  return 0;
}
