// Speed of the float32 pooling overrides (optimized/kernels/pool/) against the reference kernels (a
// measurement, never a test): the ResNet-50 stem MaxPool, MobileNetV3 GlobalAveragePool shapes and
// an AveragePool, exact and fast mode, 1 and 2 threads, on the best path of this machine
// (ONEMODEL_ISA caps it) and on the scalar path. Method after spec-source bench-method.md:
// warm-up calls, then `kReps` repetitions of as many calls as fit in about 0.3 s; a repetition's
// value is its mean time per call, the row prints the median (and min) of the repetitions.
// Other engineers may load the machine: compare rows measured together, not across runs.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace {

using namespace onemodel;

constexpr int kReps = 5;

struct Row {
  std::string label;
  std::string op;
  std::int64_t opset;
  std::vector<IrAttribute> attributes;
  std::vector<Tensor> inputs;
  Shape out_shape;
};

double seconds_per_call(const OpKernel& kernel, const NodeInfo& info, const std::vector<Tensor>& inputs,
                        std::vector<Tensor>& outputs, double* min_out) {
  RunContext context(info, inputs, outputs);
  for (int i = 0; i < 3; ++i) kernel.run(context);
  std::vector<double> reps;
  for (int r = 0; r < kReps; ++r) {
    int calls = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0.0;
    do {
      kernel.run(context);
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.3 && calls < 1000);
    reps.push_back(elapsed / calls);
  }
  std::sort(reps.begin(), reps.end());
  *min_out = reps.front();
  return reps[reps.size() / 2];
}

IrAttribute int_attribute(const std::string& name, std::int64_t value) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Int;
  a.i = value;
  return a;
}

IrAttribute ints_attribute(const std::string& name, std::vector<std::int64_t> values) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Ints;
  a.ints = std::move(values);
  return a;
}

Tensor random_tensor(const Shape& shape, std::uint32_t seed, float scale) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * scale;
  }
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

}  // namespace

int main() {
  const std::vector<IrAttribute> stem = {ints_attribute("kernel_shape", {3, 3}), ints_attribute("strides", {2, 2}),
                                         ints_attribute("pads", {1, 1, 1, 1})};
  const std::vector<IrAttribute> avg3 = {ints_attribute("kernel_shape", {3, 3}), ints_attribute("pads", {1, 1, 1, 1}),
                                         int_attribute("count_include_pad", 0)};
  const std::vector<Row> rows = {
      {"MaxPool [1,64,112,112] 3x3 s2 p1", "MaxPool", 12, stem, {random_tensor(Shape{1, 64, 112, 112}, 1, 8)},
       Shape{1, 64, 56, 56}},
      {"GlobalAveragePool [1,960,7,7]", "GlobalAveragePool", 1, {}, {random_tensor(Shape{1, 960, 7, 7}, 2, 8)},
       Shape{1, 960, 1, 1}},
      {"GlobalAveragePool [1,72,56,56]", "GlobalAveragePool", 1, {}, {random_tensor(Shape{1, 72, 56, 56}, 3, 8)},
       Shape{1, 72, 1, 1}},
      {"GlobalMaxPool [1,960,7,7]", "GlobalMaxPool", 1, {}, {random_tensor(Shape{1, 960, 7, 7}, 4, 8)},
       Shape{1, 960, 1, 1}},
      {"AveragePool [1,64,56,56] 3x3 s1 p1", "AveragePool", 19, avg3, {random_tensor(Shape{1, 64, 56, 56}, 5, 8)},
       Shape{1, 64, 56, 56}},
  };
  std::printf("pool bench: best path %s; median (min) per call; speed-up = reference / optimized\n",
              std::string(opt::isa_name(opt::select_isa())).c_str());
  std::printf("%-36s %-5s %-6s %3s %14s %14s %14s %8s\n", "case", "mode", "path", "thr", "reference us",
              "optimized us", "(min)", "speed-up");
  for (const Row& row : rows) {
    IrNode node;
    node.op_type = row.op;
    node.name = row.op + "_bench";
    node.opset = row.opset;
    for (std::size_t i = 0; i < row.inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
    node.outputs = {"out0"};
    node.attributes = row.attributes;
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      const NodeInfo info(node, row.opset, mode);
      const OpDef* def = find_op("", row.op, row.opset);
      const auto reference = def->factory(info);
      std::vector<Tensor> ref_out = {Tensor::empty(row.inputs[0].dtype(), row.out_shape)};
      double ref_min = 0.0;
      const double ref = seconds_per_call(*reference, info, row.inputs, ref_out, &ref_min);
      std::vector<opt::Isa> paths = {opt::select_isa()};
      if (paths[0] != opt::Isa::Scalar) paths.push_back(opt::Isa::Scalar);
      for (opt::Isa isa : paths) {
        for (int threads : {1, 2}) {
          if (threads == 2 && isa == opt::Isa::Scalar) continue;
          opt::ThreadPool pool(threads);
          const opt::OptimizedConfig config{isa, &pool};
          const auto optimized = opt::find_optimized_op("", row.op, row.opset)->factory(info, config);
          std::vector<Tensor> opt_out = {Tensor::empty(row.inputs[0].dtype(), row.out_shape)};
          double opt_min = 0.0;
          const double fast = seconds_per_call(*optimized, info, row.inputs, opt_out, &opt_min);
          const bool same = std::memcmp(ref_out[0].data<float>().data(), opt_out[0].data<float>().data(),
                                        static_cast<std::size_t>(row.out_shape.element_count()) * sizeof(float)) == 0;
          std::printf("%-36s %-5s %-6s %3d %14.1f %14.1f %14.1f %7.1fx%s\n", row.label.c_str(),
                      mode == ExecutionMode::Exact ? "exact" : "fast", std::string(opt::isa_name(isa)).c_str(), threads,
                      ref * 1e6, fast * 1e6, opt_min * 1e6, ref / fast, same ? "" : "  OUTPUTS DIFFER");
        }
      }
    }
  }
  return 0;
}
