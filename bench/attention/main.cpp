// Benchmark (a measurement, never a test): fused attention and softmax, optimized fast and exact
// versus the reference kernel, one thread, medians of repeated runs, milliseconds of thread CPU time.
// Shapes (kernels-attention.md, "Exact versus fast, measured"): BERT-base seq 128 (12 heads,
// head size 64, batch 1), MiniLM-L6 seq 128 (12 heads, head size 32), and Softmax over the
// attention-probability tensor of BERT-base (12 x 128 x 128, last axis).
// Run in Release: build/<dir>/bench_attention [repeats]. Other work on the machine skews numbers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/ir.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/kernels/attention/attention.hpp"
#include "optimized/kernels/softmax/softmax.hpp"

namespace {

using namespace onemodel;


// One node's kernel, built once; run() times only the kernel's run (the engines' per-call work).
class NodeRunner {
 public:
  NodeRunner(const std::string& op, std::int64_t opset, std::vector<Tensor> inputs, ExecutionMode mode, bool optimized,
             opt::Isa isa)
      : inputs_(std::move(inputs)), config_{isa, nullptr} {
    node_.op_type = op;
    node_.name = op + "_bench";
    node_.opset = opset;
    for (std::size_t i = 0; i < inputs_.size(); ++i) node_.inputs.push_back("in" + std::to_string(i));
    node_.outputs.push_back("out0");
    info_ = std::make_unique<NodeInfo>(node_, opset, mode);
    if (optimized) kernel_ = opt::find_optimized_op("", op, opset)->factory(*info_, config_);
    else kernel_ = find_op("", op, opset)->factory(*info_);
    std::vector<InferInput> described(inputs_.size());
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      described[i] = InferInput{true, inputs_[i].dtype(), inputs_[i].shape(), &inputs_[i]};
    }
    std::vector<InferOutput> stated(1);
    stated[0].wanted = true;
    InferContext infer(*info_, described, stated);
    kernel_->infer(infer);
    outputs_.push_back(Tensor::empty(stated[0].type, stated[0].shape));
  }
  void run() {
    RunContext context(*info_, inputs_, outputs_, nullptr, nullptr);
    kernel_->run(context);
  }

 private:
  IrNode node_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  opt::OptimizedConfig config_;
  std::unique_ptr<NodeInfo> info_;
  std::unique_ptr<OpKernel> kernel_;
};

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): on a machine shared with other busy
// processes, wall time of calls longer than a scheduler slice counts the time spent preempted.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median_ms(int repeats, const std::function<void()>& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const double start = thread_cpu_ms();
    f();
    t.push_back(thread_cpu_ms() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<float> normal_values(std::size_t n, float sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void attention_row(const char* name, std::size_t heads, std::size_t seq, std::size_t d, int repeats) {
  const std::size_t n = heads * seq * d;
  const std::vector<float> q = normal_values(n, 1.5f, 1), k = normal_values(n, 1.5f, 2), v = normal_values(n, 1.0f, 3);
  std::vector<float> out(n);
  opt::AttentionArgs a;
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.out = out.data();
  a.batch = 1;
  a.heads = heads;
  a.q_len = seq;
  a.kv_len = seq;
  a.d = d;
  a.dv = d;
  const auto p = [](std::size_t x) { return static_cast<std::ptrdiff_t>(x); };
  a.q_strides = a.k_strides = a.v_strides = a.out_strides = {p(heads * seq * d), p(seq * d), p(d)};
  a.scale = 1.0f / std::sqrt(static_cast<float>(d));
  const opt::Isa isa = opt::select_isa();
  const double fast = median_ms(repeats, [&] { opt::attention_f32(opt::KernelContext{isa, false, nullptr}, a); });
  const double exact = median_ms(repeats, [&] { opt::attention_f32(opt::KernelContext{isa, true, nullptr}, a); });
  // The ONNX Attention node through both engines' kernels (4-D inputs, no mask).
  const std::vector<std::int64_t> dims = {1, static_cast<std::int64_t>(heads), static_cast<std::int64_t>(seq),
                                          static_cast<std::int64_t>(d)};
  const Shape shape(std::span<const std::int64_t>(dims.data(), dims.size()));
  const std::vector<Tensor> in = {Tensor::from_values<float>(DType::F32, shape, std::span<const float>(q)),
                                  Tensor::from_values<float>(DType::F32, shape, std::span<const float>(k)),
                                  Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v))};
  NodeRunner ref("Attention", 23, in, ExecutionMode::Fast, false, isa);
  NodeRunner opt_node("Attention", 23, in, ExecutionMode::Fast, true, isa);
  const double reference = median_ms(repeats, [&] { ref.run(); });
  const double op_fast = median_ms(repeats, [&] { opt_node.run(); });
  std::printf("%-28s %-6s kernel fast %8.3f  kernel exact %8.3f  op fast %8.3f  reference %8.3f  "
              "ref/fast %5.1fx  ref/exact %5.1fx  exact/fast %4.2f\n",
              name, std::string(opt::isa_name(isa)).c_str(), fast, exact, op_fast, reference, reference / fast,
              reference / exact, exact / fast);
}

void softmax_row(const char* name, std::size_t rows, std::size_t cols, int repeats) {
  const std::vector<float> x = normal_values(rows * cols, 3.0f, 4);
  std::vector<float> y(x.size());
  const opt::Isa isa = opt::select_isa();
  const double fast =
      median_ms(repeats, [&] { opt::softmax_rows_f32(opt::KernelContext{isa, false, nullptr}, x.data(), y.data(), rows, cols); });
  const double exact =
      median_ms(repeats, [&] { opt::softmax_rows_f32(opt::KernelContext{isa, true, nullptr}, x.data(), y.data(), rows, cols); });
  const std::vector<Tensor> in = {Tensor::from_values<float>(
      DType::F32, Shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)}, std::span<const float>(x))};
  NodeRunner ref("Softmax", 13, in, ExecutionMode::Exact, false, isa);
  NodeRunner opt_node("Softmax", 13, in, ExecutionMode::Exact, true, isa);
  const double reference = median_ms(repeats, [&] { ref.run(); });
  const double op_exact = median_ms(repeats, [&] { opt_node.run(); });
  std::printf("%-28s %-6s kernel fast %8.3f  kernel exact %8.3f  op exact %8.3f  reference %8.3f  "
              "ref/fast %5.1fx  ref/exact %5.1fx  exact/fast %4.2f\n",
              name, std::string(opt::isa_name(isa)).c_str(), fast, exact, op_exact, reference, reference / fast,
              reference / exact, exact / fast);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 21;
  std::printf("milliseconds of thread CPU time, medians of %d runs, 1 thread (other processes may share the machine)\n", repeats);
  attention_row("attention BERT-base s128", 12, 128, 64, repeats);
  attention_row("attention MiniLM-L6 s128", 12, 128, 32, repeats);
  attention_row("attention BERT-base s512", 12, 512, 64, std::max(3, repeats / 4));
  softmax_row("softmax 12x128 x 128", 12 * 128, 128, repeats);
  softmax_row("softmax 64 x 30522", 64, 30522, repeats);
  return 0;
}
