// Integer convolution throughput (spec-source int8.md "Convolution"; optimized/ops/
// op_integer_conv.cpp): QLinearConv (uint8 input, int8 weights per output channel, int32 bias)
// and ConvInteger on realistic layers, run through the optimized engine's override the way a
// session runs one node (infer, prepare with the weights constant, run), per path, fast and exact
// mode, at the thread counts asked. Measurements, never tests. A figure is the minimum over
// `--repeat` runs of bench/support/timing.hpp's measurement (the median of three repetitions of
// calls run for at least 80 ms): other programs sharing the machine only ever slow a run down.
// GMAC/s counts the convolution's multiply-adds (output elements x taps x input channels per group).
//
// Usage: bench_int8_conv [--isas avx2,avx512] [--threads 1,2] [--repeat 3] [--layers name,...]
#include <algorithm>
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
#include "optimized/ops/optimized_kernel.hpp"

namespace {

using namespace onemodel;
using onemodel::opt::Isa;

struct Layer {
  const char* name;
  bool qlinear;
  std::int64_t c, size, m, group, k, stride;
};

IrAttribute int_attribute(const char* name, std::int64_t value) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Int;
  a.i = value;
  return a;
}
IrAttribute ints_attribute(const char* name, std::vector<std::int64_t> values) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Ints;
  a.ints = std::move(values);
  return a;
}

Tensor bytes(DType type, const Shape& shape, std::mt19937& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return Tensor::from_bytes(type, shape, std::as_bytes(std::span<const std::uint8_t>(v)));
}

Tensor floats(const Shape& shape, float base, std::mt19937& rng) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = base * static_cast<float>(rng() % 100 + 50) / 100.0f;
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

// Seconds per call of the override on `l`: wall and process CPU time, each the minimum over
// `repeat` measurements (at 1 thread the CPU time is the least disturbed by other programs).
bench::Timing run_layer(const Layer& l, Isa isa, int threads, ExecutionMode mode, int repeat) {
  std::mt19937 rng(11);
  const std::int64_t pad = l.k / 2;
  IrNode node;
  node.op_type = l.qlinear ? "QLinearConv" : "ConvInteger";
  node.name = "conv";
  node.opset = 10;
  node.attributes = {int_attribute("group", l.group), ints_attribute("kernel_shape", {l.k, l.k}),
                     ints_attribute("strides", {l.stride, l.stride}), ints_attribute("pads", {pad, pad, pad, pad})};
  const Shape xs{1, l.c, l.size, l.size};
  const Shape ws{l.m, l.c / l.group, l.k, l.k};
  std::vector<Tensor> inputs;
  if (l.qlinear) {
    std::vector<std::int32_t> bias(static_cast<std::size_t>(l.m));
    for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 2001) - 1000;
    std::vector<std::uint8_t> zx{128};
    inputs = {bytes(DType::U8, xs, rng), floats(Shape{}, 0.02f, rng),
              Tensor::from_bytes(DType::U8, Shape{}, std::as_bytes(std::span<const std::uint8_t>(zx))),
              bytes(DType::I8, ws, rng), floats(Shape{l.m}, 0.001f, rng),
              Tensor::from_bytes(DType::I8, Shape{l.m}, std::as_bytes(std::span<const std::uint8_t>(std::vector<std::uint8_t>(static_cast<std::size_t>(l.m), 0)))),
              floats(Shape{}, 0.05f, rng), Tensor::from_bytes(DType::U8, Shape{}, std::as_bytes(std::span<const std::uint8_t>(zx))),
              Tensor::from_values<std::int32_t>(DType::I32, Shape{l.m}, std::span<const std::int32_t>(bias))};
  } else {
    inputs = {bytes(DType::U8, xs, rng), bytes(DType::I8, ws, rng), bytes(DType::U8, Shape{}, rng),
              bytes(DType::I8, Shape{}, rng)};
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
  node.outputs = {"y"};
  const NodeInfo info(node, 10, mode);
  opt::ThreadPool pool(threads);
  const opt::OptimizedConfig config{isa, &pool};
  const opt::OptimizedOpDef* def = opt::find_optimized_op("", node.op_type, 10);
  if (def == nullptr) return {};
  std::unique_ptr<OpKernel> kernel = def->factory(info, config);
  std::vector<InferInput> described;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    // Every input but x is a constant of the model (weights, scales, zero points, bias).
    described.push_back(InferInput{true, inputs[i].dtype(), inputs[i].shape(), i == 0 ? nullptr : &inputs[i]});
  }
  std::vector<InferOutput> stated(1);
  stated[0].wanted = true;
  InferContext infer(info, described, stated);
  kernel->infer(infer);
  const std::shared_ptr<const void> state = kernel->prepare(infer);
  std::vector<Tensor> outputs{Tensor::empty(stated[0].type, stated[0].shape)};
  bench::Timing best;
  for (int r = 0; r < repeat; ++r) {
    const bench::Timing t = bench::measure([&] {
      RunContext context(info, inputs, outputs, nullptr, state.get());
      kernel->run(context);
    });
    best.wall = r == 0 ? t.wall : std::min(best.wall, t.wall);
    best.cpu = r == 0 ? t.cpu : std::min(best.cpu, t.cpu);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const Layer all[] = {
      {"resnet50 3x3 64x56x56->64", true, 64, 56, 64, 1, 3, 1},
      {"resnet50 1x1 256x56x56->64", true, 256, 56, 64, 1, 1, 1},
      {"convinteger 3x3 64x56x56->64", false, 64, 56, 64, 1, 3, 1},
      {"mnv3 dw 3x3/1 72x56x56", true, 72, 56, 72, 72, 3, 1},
      {"mnv3 dw 3x3/2 72x56x56", true, 72, 56, 72, 72, 3, 2},
      {"mnv3 dw 3x3/2 240x28x28", true, 240, 28, 240, 240, 3, 2},
      {"mnv3 dw 5x5/1 120x28x28", true, 120, 28, 120, 120, 5, 1},
  };
  std::vector<Isa> isas{opt::available_isas().back()};
  std::vector<int> threads{1, 2};
  int repeat = 3;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--isas") {
      isas.clear();
      for (Isa isa : opt::available_isas()) {
        // (Built with append(), not "," + value: GCC 12 warns falsely about operator+ on a
        // literal and a string at -O2, -Wrestrict.)
        std::string list(","), name(",");
        list.append(value).append(",");
        name.append(opt::isa_name(isa)).append(",");
        if (list.find(name) != std::string::npos) isas.push_back(isa);
      }
    } else if (flag == "--threads") {
      threads.clear();
      for (char c : value) {
        if (c >= '1' && c <= '9') threads.push_back(c - '0');
      }
    } else if (flag == "--repeat") {
      repeat = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--layers") {
      only = value;
    }
  }
  std::printf("%-30s %-7s %-5s %7s %10s %9s %10s\n", "layer", "path", "mode", "threads", "ms", "GMAC/s", "cpu ms");
  for (const Layer& l : all) {
    if (!only.empty() && std::string(l.name).find(only) == std::string::npos) continue;
    const std::int64_t out = (l.size + 2 * (l.k / 2) - l.k) / l.stride + 1;
    const double macs = static_cast<double>(l.m * out * out * (l.c / l.group) * l.k * l.k);
    for (Isa isa : isas) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        for (int t : threads) {
          const bench::Timing s = run_layer(l, isa, t, mode, repeat);
          std::printf("%-30s %-7s %-5s %7d %10.3f %9.1f %10.3f\n", l.name, std::string(opt::isa_name(isa)).c_str(),
                      mode == ExecutionMode::Fast ? "fast" : "exact", t, s.wall * 1e3, macs / s.wall * 1e-9, s.cpu * 1e3);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
