// Speed of the QuantizeLinear and DynamicQuantizeLinear overrides against the reference kernels
// (a measurement, never a test): 1x768x3072 float32 elements (a transformer's FFN activation),
// exact mode, every path this machine has, 1 and 2 threads, as nanoseconds per element. Each row
// checks the override's bytes against the reference's. Other programs may load the machine: a row
// prints the minimum over kReps repetitions of as many calls as fit in about 0.2 s, wall-clock and
// process CPU time (all threads; less disturbed by other programs than the wall clock).
//
// Usage: bench_quantize [--threads 1,2]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/support/timing.hpp"
#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace {

using namespace onemodel;

constexpr int kReps = 7;

struct Timing {
  double wall = 1e30;  // seconds per call, the minimum repetition
  double cpu = 1e30;   // process CPU seconds per call (all threads), the minimum repetition
};

Timing min_per_call(const OpKernel& kernel, const NodeInfo& info, const std::vector<Tensor>& inputs,
                    std::vector<Tensor>& outputs) {
  RunContext context(info, inputs, outputs);
  for (int i = 0; i < 2; ++i) kernel.run(context);
  Timing best;
  for (int r = 0; r < kReps; ++r) {
    int calls = 0;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = bench::process_cpu_seconds();
    double elapsed = 0.0;
    do {
      kernel.run(context);
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.2);
    best.wall = std::min(best.wall, elapsed / calls);
    best.cpu = std::min(best.cpu, (bench::process_cpu_seconds() - cpu_start) / calls);
  }
  return best;
}

struct Row {
  std::string label;
  std::string op;
  std::int64_t opset;
  std::vector<Tensor> inputs;
  std::vector<std::pair<DType, Shape>> outputs;
};

std::vector<Tensor> make_outputs(const Row& row) {
  std::vector<Tensor> out;
  for (const auto& [type, shape] : row.outputs) out.push_back(Tensor::empty(type, shape));
  return out;
}

bool same_bytes(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = tensor_bytes(a[i]), y = tensor_bytes(b[i]);
    if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size()) != 0) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads = {1, 2};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--threads") {
      threads.clear();
      for (char c : std::string(argv[i + 1])) {
        if (c >= '1' && c <= '9') threads.push_back(c - '0');
      }
    }
  }
  const Shape shape{1, 768, 3072};
  const auto count = static_cast<std::size_t>(shape.element_count());
  std::vector<float> x(count);
  std::uint32_t s = 7;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 12.0f;
  }
  const Tensor xt = Tensor::from_values<float>(DType::F32, shape, std::span<const float>(x));
  const std::vector<float> scale = {0.047f};
  const std::vector<std::uint8_t> zero = {128};
  const std::vector<Row> rows = {
      {"QuantizeLinear u8 per tensor", "QuantizeLinear", 13,
       {xt, Tensor::from_values<float>(DType::F32, Shape{}, std::span<const float>(scale)),
        Tensor::from_bytes(DType::U8, Shape{}, std::as_bytes(std::span<const std::uint8_t>(zero)))},
       {{DType::U8, shape}}},
      {"DynamicQuantizeLinear", "DynamicQuantizeLinear", 11, {xt}, {{DType::U8, shape}, {DType::F32, Shape{}}, {DType::U8, Shape{}}}},
  };
  std::printf("quantize bench: [1,768,3072] float32, exact mode, min of %d repetitions, ns per element\n", kReps);
  std::printf("%-30s %-7s %7s %10s %10s %10s %10s %8s\n", "case", "path", "threads", "ref wall", "ref cpu", "opt wall",
              "opt cpu", "wall x");
  for (const Row& row : rows) {
    IrNode node;
    node.op_type = row.op;
    node.name = row.op + "_bench";
    node.opset = row.opset;
    for (std::size_t i = 0; i < row.inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
    for (std::size_t i = 0; i < row.outputs.size(); ++i) node.outputs.push_back("out" + std::to_string(i));
    const NodeInfo info(node, row.opset, ExecutionMode::Exact);
    const auto reference = find_op("", row.op, row.opset)->factory(info);
    std::vector<Tensor> ref_out = make_outputs(row);
    const double per = 1e9 / static_cast<double>(count);
    const Timing ref = min_per_call(*reference, info, row.inputs, ref_out);
    for (opt::Isa isa : opt::available_isas()) {
      for (int t : threads) {
        opt::ThreadPool pool(t);
        const opt::OptimizedConfig config{isa, &pool};
        const auto optimized = opt::find_optimized_op("", row.op, row.opset)->factory(info, config);
        std::vector<Tensor> opt_out = make_outputs(row);
        const Timing o = min_per_call(*optimized, info, row.inputs, opt_out);
        std::printf("%-30s %-7s %7d %10.3f %10.3f %10.3f %10.3f %7.1fx%s\n", row.label.c_str(),
                    std::string(opt::isa_name(isa)).c_str(), t, ref.wall * per, ref.cpu * per, o.wall * per, o.cpu * per,
                    ref.wall / o.wall, same_bytes(ref_out, opt_out) ? "" : "  OUTPUTS DIFFER");
      }
    }
  }
  return 0;
}
