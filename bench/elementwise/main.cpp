// Speed of the element-wise and Transpose overrides against the reference kernels (a measurement,
// never a test): about 1M float32 elements, 1 thread, exact and fast mode, on the best path of this
// machine (ONEMODEL_ISA caps it) and on the scalar path. Method after spec-source bench-method.md:
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

IrAttribute string_attribute(const std::string& name, const std::string& value) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::String;
  a.s = value;
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

// Optional argument: run only the rows whose label contains it (e.g. "Sigmoid").
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const Shape square{1024, 1024};
  const std::vector<Row> rows = {
      {"Add [1024,1024]+[1024,1024]", "Add", 14, {}, {random_tensor(square, 1, 8), random_tensor(square, 2, 8)}, square},
      {"Add [1024,1024]+[1024]", "Add", 14, {}, {random_tensor(square, 1, 8), random_tensor(Shape{1024}, 2, 8)}, square},
      {"Add [1024,1024]+[]", "Add", 14, {}, {random_tensor(square, 1, 8), random_tensor(Shape{}, 2, 8)}, square},
      {"Relu [1M]", "Relu", 14, {}, {random_tensor(square, 3, 8)}, square},
      {"Exp [1M]", "Exp", 13, {}, {random_tensor(square, 4, 40)}, square},
      {"Tanh [1M]", "Tanh", 13, {}, {random_tensor(square, 5, 8)}, square},
      {"Sigmoid [1M]", "Sigmoid", 13, {}, {random_tensor(square, 5, 8)}, square},
      {"Gelu erf [1M]", "Gelu", 20, {}, {random_tensor(square, 6, 8)}, square},
      {"Gelu tanh [1M]", "Gelu", 20, {string_attribute("approximate", "tanh")}, {random_tensor(square, 6, 8)}, square},
      {"Transpose [1024,1024] (1,0)", "Transpose", 13, {}, {random_tensor(square, 7, 8)}, square},
      {"Transpose [1,64,128,128] (0,2,3,1)", "Transpose", 13, {ints_attribute("perm", {0, 2, 3, 1})},
       {random_tensor(Shape{1, 64, 128, 128}, 8, 8)}, Shape{1, 128, 128, 64}},
  };
  opt::ThreadPool pool(1);
  std::printf("elementwise bench: 1 thread, best path %s; median (min) per call; speed-up = reference / optimized\n",
              std::string(opt::isa_name(opt::select_isa())).c_str());
  std::printf("%-38s %-5s %-6s %14s %14s %14s %8s\n", "case", "mode", "path", "reference us", "optimized us",
              "(min)", "speed-up");
  for (const Row& row : rows) {
    if (!only.empty() && row.label.find(only) == std::string::npos) continue;
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
        const opt::OptimizedConfig config{isa, &pool};
        const auto optimized = opt::find_optimized_op("", row.op, row.opset)->factory(info, config);
        std::vector<Tensor> opt_out = {Tensor::empty(row.inputs[0].dtype(), row.out_shape)};
        double opt_min = 0.0;
        const double fast = seconds_per_call(*optimized, info, row.inputs, opt_out, &opt_min);
        const bool same = std::memcmp(ref_out[0].data<float>().data(), opt_out[0].data<float>().data(),
                                      static_cast<std::size_t>(row.out_shape.element_count()) * sizeof(float)) == 0;
        std::printf("%-38s %-5s %-6s %14.1f %14.1f %14.1f %7.1fx%s\n", row.label.c_str(),
                    mode == ExecutionMode::Exact ? "exact" : "fast", std::string(opt::isa_name(isa)).c_str(), ref * 1e6,
                    fast * 1e6, opt_min * 1e6, ref / fast,
                    same ? "" : mode == ExecutionMode::Fast ? "  (fast-mode function: not the reference's bits)"
                                                            : "  OUTPUTS DIFFER");
      }
    }
  }
  return 0;
}
