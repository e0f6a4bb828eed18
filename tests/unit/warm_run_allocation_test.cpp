// graph-runtime.md section 4: once the plan exists, a warm run of the optimized engine on static
// shapes allocates nothing, also for nodes that run a reference kernel (no override) or an override
// that used to build std::vector temporaries per run. Each graph below holds operators of one kind
// that allocated on every run before (issue 15): the element-wise reference kernels (broadcast
// reads copied into vectors), Slice / Pad / Gather (integer operands read into vectors), MaxPool
// and AveragePool (geometry resolved per run) and LSTM / GRU (state and step buffers as vectors).
// Every graph's outputs are also the reference engine's, bit for bit in exact mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"

// Counts heap allocations on every thread while `g_counting` is set. GCC cannot see that the
// replaced operators pair malloc with free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};

void* counted(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* counted_aligned(std::size_t n, std::align_val_t a) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t alignment = std::max(static_cast<std::size_t>(a), sizeof(void*));
  void* p = nullptr;
  if (posix_memalign(&p, alignment, n == 0 ? 1 : n) != 0) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;
using ir_builder::ints_attr;
using ir_builder::string_attr;

Tensor ramp(const Shape& shape, float scale = 0.25f, float offset = -3.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * static_cast<float>(i % 29);
  return Tensor::from_values<float>(DType::F32, shape, v);
}

Tensor ints(DType type, const Shape& shape, const std::vector<std::int64_t>& values) {
  if (type == DType::I64) return Tensor::from_values<std::int64_t>(type, shape, values);
  std::vector<std::int32_t> narrow(values.begin(), values.end());
  return Tensor::from_values<std::int32_t>(type, shape, narrow);
}

struct Case {
  IrModel model;
  std::vector<std::string> input_names;
  std::vector<Tensor> inputs;
  std::vector<std::string> output_names;
};

// Allocations over three warm runs of the optimized engine (`threads` intra-op threads, the
// workers' allocations counted too), after two runs that make the plan and the run state; the
// outputs are then compared with the reference engine's.
long warm_allocations(const Case& c, ExecutionMode mode, int threads = 1) {
  SessionOptions options;
  options.mode = mode;
  options.intra_op_threads = threads;
  // At two threads every call of two or more chunks is shared (Sharing::Always), so the counted
  // runs do run the workers' side, and the test checks that a call was shared.
  const opt::ThreadPool::Sharing sharing = opt::ThreadPool::session_sharing();
  if (threads > 1) opt::ThreadPool::set_session_sharing(opt::ThreadPool::Sharing::Always);
  Session session = Session::create(c.model, options);
  opt::ThreadPool::set_session_sharing(sharing);
  std::vector<Tensor> outputs(c.output_names.size());
  session.run(c.input_names, c.inputs, c.output_names, outputs);
  session.run(c.input_names, c.inputs, c.output_names, outputs);
  const std::uint64_t shared_before = opt::ThreadPool::shared_calls_everywhere();
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 3; ++i) session.run(c.input_names, c.inputs, c.output_names, outputs);
  g_counting = false;
  const long counted = g_allocations.load();
  if (threads > 1 && opt::two_threads::kAvailable) {
    EXPECT_GT(opt::ThreadPool::shared_calls_everywhere() - shared_before, 0u)
        << "no call of the counted two-thread runs was shared by two threads";
  }

  SessionOptions reference = options;
  reference.engine = EngineKind::Reference;
  std::vector<Tensor> expected(c.output_names.size());
  Session::create(c.model, reference).run(c.input_names, c.inputs, c.output_names, expected);
  if (mode == ExecutionMode::Exact) test::expect_same_outputs(outputs, expected, "optimized vs reference");
  return counted;
}

void expect_no_warm_allocations(const Case& c, const std::string& what, std::initializer_list<int> threads = {1}) {
  for (const int t : threads) {
    for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(warm_allocations(c, mode, t), 0)
          << what << (mode == ExecutionMode::Fast ? " (fast, " : " (exact, ") << t << " thread(s))";
    }
  }
}

TEST(WarmRunAllocation, ElementwiseReferenceKernelsWithBroadcasting) {
  // Pow, Where, Cast, And, Not, Sum and Equal have no override: the reference kernels run, each
  // reading broadcast inputs (a [4, 1] column, a [5] row, a scalar) and a transposed value.
  GraphBuilder b;
  b.input("x", DType::F32, Shape{4, 5});
  b.input("col", DType::F32, Shape{4, 1});
  b.initializer("e", Tensor::from_values<float>(DType::F32, Shape{5}, {1.0f, 2.0f, 0.5f, 3.0f, -1.0f}));
  b.initializer("zero", Tensor::from_values<float>(DType::F32, Shape{}, {0.0f}));
  b.node("Abs", {"x"}, {"ax"});
  b.node("Pow", {"ax", "e"}, {"p"});
  b.node("Greater", {"x", "col"}, {"gt"});
  b.node("Less", {"x", "zero"}, {"lt"});
  b.node("And", {"gt", "lt"}, {"both"});
  b.node("Not", {"both"}, {"neither"});
  b.node("Where", {"neither", "p", "col"}, {"w"});
  b.node("Cast", {"w"}, {"wi"}, {int_attr("to", 7)});
  b.node("Cast", {"wi"}, {"wf"}, {int_attr("to", 1)});
  b.node("Transpose", {"x"}, {"xt"}, {ints_attr("perm", {1, 0})});
  b.node("Transpose", {"xt"}, {"xtt"}, {ints_attr("perm", {1, 0})});
  b.node("Sum", {"wf", "col", "xtt"}, {"s"});
  b.node("Equal", {"wi", "wi"}, {"eq"});
  b.output("s", DType::F32).output("eq", DType::Bool);
  Case c{b.build(), {"x", "col"}, {ramp(Shape{4, 5}), ramp(Shape{4, 1}, 0.5f, -1.0f)}, {"s", "eq"}};
  expect_no_warm_allocations(c, "element-wise");
}

TEST(WarmRunAllocation, SlicePadAndGatherWithConstantOperands) {
  // Slice with starts, ends, axes and steps (a negative step flips), Pad with pads, Gather with
  // int64 and int32 indices (more than the 16 held inline, and negative ones).
  GraphBuilder b;
  b.input("x", DType::F32, Shape{2, 6, 8});
  b.initializer("starts", ints(DType::I64, Shape{2}, {5, 1}));
  b.initializer("ends", ints(DType::I64, Shape{2}, {0, 7}));
  b.initializer("axes", ints(DType::I64, Shape{2}, {1, -1}));
  b.initializer("steps", ints(DType::I64, Shape{2}, {-2, 3}));
  b.initializer("pads", ints(DType::I64, Shape{6}, {0, 1, 2, 0, 0, 1}));
  std::vector<std::int64_t> many;
  for (int i = 0; i < 24; ++i) many.push_back(i % 2 == 0 ? i % 8 : -(i % 8) - 1);
  b.initializer("idx64", ints(DType::I64, Shape{4, 6}, many));
  b.initializer("idx32", ints(DType::I32, Shape{3}, {0, -1, 2}));
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"sl"});
  b.node("Pad", {"x", "pads"}, {"pd"}, {string_attr("mode", "reflect")});
  b.node("Pad", {"x", "pads"}, {"pc"});
  b.node("Gather", {"x", "idx64"}, {"g64"}, {int_attr("axis", 2)});
  b.node("Gather", {"x", "idx32"}, {"g32"}, {int_attr("axis", 1)});
  b.output("sl", DType::F32).output("pd", DType::F32).output("pc", DType::F32);
  b.output("g64", DType::F32).output("g32", DType::F32);
  Case c{b.build(), {"x"}, {ramp(Shape{2, 6, 8})}, {"sl", "pd", "pc", "g64", "g32"}};
  expect_no_warm_allocations(c, "Slice, Pad, Gather");
}

TEST(WarmRunAllocation, MaxPoolAndAveragePool) {
  GraphBuilder b;
  b.input("x", DType::F32, Shape{1, 3, 9, 9});
  b.node("MaxPool", {"x"}, {"mp"}, {ints_attr("kernel_shape", {3, 3}), ints_attr("strides", {2, 2}),
                                    ints_attr("pads", {1, 1, 1, 1})});
  b.node("AveragePool", {"x"}, {"ap"}, {ints_attr("kernel_shape", {2, 3}), ints_attr("pads", {0, 1, 0, 1}),
                                        int_attr("count_include_pad", 1), int_attr("ceil_mode", 1),
                                        ints_attr("strides", {2, 2})});
  b.output("mp", DType::F32).output("ap", DType::F32);
  Case c{b.build(), {"x"}, {ramp(Shape{1, 3, 9, 9})}, {"mp", "ap"}};
  expect_no_warm_allocations(c, "pooling");
}

TEST(WarmRunAllocation, BidirectionalLstmAndGru) {
  // Constant weights (packed at plan time), an initial state, sequence lengths below the sequence.
  constexpr std::int64_t seq = 5, batch = 3, input = 4, hidden = 6;
  GraphBuilder b;
  b.input("x", DType::F32, Shape{seq, batch, input});
  b.initializer("lw", ramp(Shape{2, 4 * hidden, input}, 0.01f, -0.1f));
  b.initializer("lr", ramp(Shape{2, 4 * hidden, hidden}, 0.02f, -0.2f));
  b.initializer("lb", ramp(Shape{2, 8 * hidden}, 0.03f, -0.3f));
  b.initializer("gw", ramp(Shape{2, 3 * hidden, input}, 0.015f, -0.1f));
  b.initializer("gr", ramp(Shape{2, 3 * hidden, hidden}, 0.025f, -0.2f));
  b.initializer("lens", ints(DType::I32, Shape{batch}, {5, 2, 4}));
  b.initializer("h0", ramp(Shape{2, batch, hidden}, 0.05f, -0.4f));
  b.node("LSTM", {"x", "lw", "lr", "lb", "lens", "h0"}, {"ly", "lh", "lc"},
         {int_attr("hidden_size", hidden), string_attr("direction", "bidirectional")});
  b.node("GRU", {"x", "gw", "gr", "", "lens", "h0"}, {"gy", "gh"},
         {int_attr("hidden_size", hidden), string_attr("direction", "bidirectional"),
          int_attr("linear_before_reset", 0)});
  b.output("ly", DType::F32).output("lh", DType::F32).output("lc", DType::F32);
  b.output("gy", DType::F32).output("gh", DType::F32);
  Case c{b.build(), {"x"}, {ramp(Shape{seq, batch, input}, 0.1f, -1.0f)}, {"ly", "lh", "lc", "gy", "gh"}};
  expect_no_warm_allocations(c, "recurrent");
}

TEST(WarmRunAllocation, DynamicallyQuantizedProducts) {
  // DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by the two scales (the pattern of the
  // dynamically quantized transformers, which a pass runs as one product), a MatMulInteger with
  // an int32 output of its own, and a ConvInteger (it made two vectors per call until session 39:
  // Whisper encoder int8, 4 allocations per warm call).
  GraphBuilder b;
  b.input("x", DType::F32, Shape{6, 8});
  std::vector<std::int8_t> w(8 * 5);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(static_cast<int>(i * 7 % 23) - 11);
  b.initializer("w", Tensor::from_values<std::int8_t>(DType::I8, Shape{8, 5}, w));
  b.initializer("wz", Tensor::from_values<std::int8_t>(DType::I8, Shape{}, {std::int8_t{3}}));
  b.initializer("ws", Tensor::from_values<float>(DType::F32, Shape{}, {0.05f}));
  b.node("DynamicQuantizeLinear", {"x"}, {"q", "qs", "qz"});
  b.node("MatMulInteger", {"q", "w", "qz", "wz"}, {"acc"});
  b.node("Cast", {"acc"}, {"accf"}, {int_attr("to", 1)});
  b.node("Mul", {"qs", "ws"}, {"scale"});
  b.node("Mul", {"accf", "scale"}, {"y"});
  b.node("MatMulInteger", {"q", "w"}, {"raw"});
  // ConvInteger of a dynamically quantized map (the speech encoders' front ends): x's zero point
  // is the call's, not the plan's.
  b.input("x4", DType::F32, Shape{1, 4, 7, 7});
  std::vector<std::int8_t> w4(6 * 4 * 3 * 3);
  for (std::size_t i = 0; i < w4.size(); ++i) w4[i] = static_cast<std::int8_t>(static_cast<int>(i * 11 % 29) - 14);
  b.initializer("w4", Tensor::from_values<std::int8_t>(DType::I8, Shape{6, 4, 3, 3}, w4));
  b.node("DynamicQuantizeLinear", {"x4"}, {"q4", "qs4", "qz4"});
  b.node("ConvInteger", {"q4", "w4", "qz4"}, {"conv"}, {ints_attr("pads", {1, 1, 1, 1})});
  b.output("y", DType::F32).output("raw", DType::I32).output("conv", DType::I32);
  Case c{b.build(), {"x", "x4"}, {ramp(Shape{6, 8}), ramp(Shape{1, 4, 7, 7}, 0.09f, -1.2f)}, {"y", "raw", "conv"}};
  expect_no_warm_allocations(c, "int8 products");
}

// A QDQ convolution as quantization tools write it: DequantizeLinear of the uint8 activation,
// of int8 weights with per-channel scales and of an int32 bias (scale sx * sw), then Conv, then
// QuantizeLinear. Fast mode runs it as one QLinearConv (the qdq pass), exact mode as written.
void add_qdq_conv(GraphBuilder& b, const std::string& name, std::int64_t m, std::int64_t c_per_group,
                  std::int64_t kernel, std::int64_t group, float sx) {
  std::vector<std::int8_t> w(static_cast<std::size_t>(m * c_per_group * kernel * kernel));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(static_cast<int>(i * 37 % 251) - 125);
  std::vector<float> sw(static_cast<std::size_t>(m)), sb(static_cast<std::size_t>(m));
  std::vector<std::int32_t> bias(static_cast<std::size_t>(m));
  for (std::size_t i = 0; i < sw.size(); ++i) {
    sw[i] = 0.002f + 0.0005f * static_cast<float>(i % 7);
    sb[i] = sx * sw[i];  // the float32 product the qdq pass checks
    bias[i] = static_cast<std::int32_t>(i * 131 % 997) - 498;
  }
  const Shape ws{m, c_per_group, kernel, kernel};
  b.initializer(name + "_w", Tensor::from_values<std::int8_t>(DType::I8, ws, w));
  b.initializer(name + "_sw", Tensor::from_values<float>(DType::F32, Shape{m}, sw));
  b.initializer(name + "_zw", Tensor::zeros(DType::I8, Shape{m}));
  b.initializer(name + "_b", Tensor::from_values<std::int32_t>(DType::I32, Shape{m}, bias));
  b.initializer(name + "_sb", Tensor::from_values<float>(DType::F32, Shape{m}, sb));
  b.initializer(name + "_zb", Tensor::zeros(DType::I32, Shape{m}));
  b.initializer(name + "_sy", Tensor::from_values<float>(DType::F32, Shape{}, {0.04f}));
  b.initializer(name + "_zy", Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {std::uint8_t{131}}));
  b.node("DequantizeLinear", {name + "_w", name + "_sw", name + "_zw"}, {name + "_wd"}, {int_attr("axis", 0)});
  b.node("DequantizeLinear", {name + "_b", name + "_sb", name + "_zb"}, {name + "_bd"}, {int_attr("axis", 0)});
  const std::int64_t pad = kernel / 2;
  b.node("Conv", {"xd", name + "_wd", name + "_bd"}, {name + "_y"},
         {ints_attr("kernel_shape", {kernel, kernel}), ints_attr("pads", {pad, pad, pad, pad}),
          int_attr("group", group)});
  b.node("QuantizeLinear", {name + "_y", name + "_sy", name + "_zy"}, {name + "_q"});
  b.node("DequantizeLinear", {name + "_q", name + "_sy", name + "_zy"}, {name});
  b.output(name, DType::F32);
}

TEST(WarmRunAllocation, QdqInt8Convolutions) {
  // Four QDQ convolutions of one quantized input [2, 8, 24, 24] (576 positions: three column
  // blocks per image): 3x3 (6 window packs: the two-phase form), 3x3 in 2 groups (12 packs: the
  // one-phase form), 1x1 (the pointwise packing) and depthwise 3x3 (the direct kernel).
  constexpr float sx = 0.03f;
  GraphBuilder b;
  b.input("x", DType::F32, Shape{2, 8, 24, 24});
  b.initializer("sx", Tensor::from_values<float>(DType::F32, Shape{}, {sx}));
  b.initializer("zx", Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {std::uint8_t{120}}));
  b.node("QuantizeLinear", {"x", "sx", "zx"}, {"xq"});
  b.node("DequantizeLinear", {"xq", "sx", "zx"}, {"xd"});
  add_qdq_conv(b, "full", 16, 8, 3, 1, sx);
  add_qdq_conv(b, "grouped", 16, 4, 3, 2, sx);
  add_qdq_conv(b, "pointwise", 12, 8, 1, 1, sx);
  add_qdq_conv(b, "depthwise", 8, 1, 3, 8, sx);
  Case c{b.build(), {"x"}, {ramp(Shape{2, 8, 24, 24}, 0.07f, -1.0f)}, {"full", "grouped", "pointwise", "depthwise"}};
  // The fast session does run the integer kernel: the four convolutions are QLinearConv nodes.
  SessionOptions fast;
  static opt::ThreadPool pool(1);
  const auto graph = opt::compile_graph(c.model, fast, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
  std::size_t qlinear = 0;
  for (const auto& node : graph->nodes) qlinear += node.ir->op_type == "QLinearConv" ? 1 : 0;
  EXPECT_EQ(qlinear, 4u);
  expect_no_warm_allocations(c, "QDQ int8 convolutions");
}

TEST(WarmRunAllocation, QdqInt8MatMul) {
  // The QDQ form of a product with per-column int8 weights: fast mode runs it as one QLinearMatMul
  // (the qdq pass), whose requantization is read once per plan.
  constexpr float sx = 0.03f;
  GraphBuilder b;
  b.input("x", DType::F32, Shape{6, 32});
  std::vector<std::int8_t> w(32 * 24);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(static_cast<int>(i * 53 % 241) - 120);
  std::vector<float> sw(24);
  for (std::size_t i = 0; i < sw.size(); ++i) sw[i] = 0.003f + 0.0004f * static_cast<float>(i % 5);
  b.initializer("sx", Tensor::from_values<float>(DType::F32, Shape{}, {sx}));
  b.initializer("zx", Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {std::uint8_t{125}}));
  b.initializer("w", Tensor::from_values<std::int8_t>(DType::I8, Shape{32, 24}, w));
  b.initializer("sw", Tensor::from_values<float>(DType::F32, Shape{24}, sw));
  b.initializer("zw", Tensor::zeros(DType::I8, Shape{24}));
  b.initializer("sy", Tensor::from_values<float>(DType::F32, Shape{}, {0.05f}));
  b.initializer("zy", Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {std::uint8_t{128}}));
  b.node("QuantizeLinear", {"x", "sx", "zx"}, {"xq"});
  b.node("DequantizeLinear", {"xq", "sx", "zx"}, {"xd"});
  b.node("DequantizeLinear", {"w", "sw", "zw"}, {"wd"}, {int_attr("axis", 1)});
  b.node("MatMul", {"xd", "wd"}, {"y"});
  b.node("QuantizeLinear", {"y", "sy", "zy"}, {"yq"});
  b.node("DequantizeLinear", {"yq", "sy", "zy"}, {"out"});
  b.output("out", DType::F32);
  Case c{b.build(), {"x"}, {ramp(Shape{6, 32}, 0.11f, -1.5f)}, {"out"}};
  SessionOptions fast;
  static opt::ThreadPool pool(1);
  const auto graph = opt::compile_graph(c.model, fast, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
  std::size_t qlinear = 0;
  for (const auto& node : graph->nodes) qlinear += node.ir->op_type == "QLinearMatMul" ? 1 : 0;
  EXPECT_EQ(qlinear, 1u);
  expect_no_warm_allocations(c, "QDQ int8 MatMul");
}

TEST(WarmRunAllocation, TransposedOperandOfABatchedProduct) {
  // A Linear over a batch of [C, T] maps read as [T, C] (Transpose [0, 2, 1], the CNN-to-sequence
  // step of text recognisers and speech encoders at batch > 1): the matmul-transpose pass's node
  // ran the separate Transpose and MatMul kernels, with their shapes and tensors, on every call
  // until session 39 (PP-OCR recogniser at batch 8: 23 allocations per warm call).
  GraphBuilder b;
  // B is a graph input here: a constant B would make a LinearOp of the MatMul first.
  // 4 x 40 merged rows of 64 against 96 columns: a product of several tiles, so two threads share it.
  b.input("x", DType::F32, Shape{4, 64, 40});
  b.input("w", DType::F32, Shape{64, 96});
  b.node("Transpose", {"x"}, {"xt"}, {ints_attr("perm", {0, 2, 1})});
  b.node("MatMul", {"xt", "w"}, {"y"});
  b.output("y", DType::F32);
  Case c{b.build(), {"x", "w"}, {ramp(Shape{4, 64, 40}, 0.11f, -1.5f), ramp(Shape{64, 96}, 0.03f, -0.2f)}, {"y"}};
  expect_no_warm_allocations(c, "transposed operand", {1, 2});
}

// A float32 Conv named `name` of `from`; `pads` as ONNX writes them (begins, then ends).
void add_float_conv(GraphBuilder& b, const std::string& from, const std::string& name, std::int64_t m,
                    std::int64_t c_per_group, std::vector<std::int64_t> kernel, std::int64_t group,
                    std::vector<std::int64_t> strides, std::vector<std::int64_t> pads,
                    std::vector<std::int64_t> dilations = {1, 1}) {
  b.initializer(name + "_w", ramp(Shape{m, c_per_group, kernel[0], kernel[1]}, 0.013f, -0.17f));
  b.initializer(name + "_b", ramp(Shape{m}, 0.05f, -0.3f));
  b.node("Conv", {from, name + "_w", name + "_b"}, {name},
         {ints_attr("kernel_shape", kernel), ints_attr("strides", strides), ints_attr("pads", pads),
          ints_attr("dilations", dilations), int_attr("group", group)});
}

TEST(WarmRunAllocation, FloatConvolutionsOfEveryKernelFamily) {
  // One graph with a Conv for each float32 kernel family and the fusions around them, at one and
  // two threads: depthwise 3x3 and 5x5 at strides 1 and 2 (the plane walk, the in-place stride-2
  // kernel and, for the 7-wide and the 5x5 outputs, the channel-blocked kernel, which made a table
  // per call in session 37), a depthwise Conv with Relu and one with SiLU on a 7 x 7 map, dense
  // 3x3 with Relu, 1x1 at strides 1 and 2, grouped, dilated, a patch embedding (kernel = stride:
  // the phase planes), a 3-channel stem, Conv + BatchNormalization + Relu and a residual Add.
  GraphBuilder b;
  b.input("x", DType::F32, Shape{1, 32, 14, 14});
  b.input("img", DType::F32, Shape{1, 3, 28, 28});
  add_float_conv(b, "x", "dw3", 32, 1, {3, 3}, 32, {1, 1}, {1, 1, 1, 1});
  add_float_conv(b, "x", "dw3s2", 32, 1, {3, 3}, 32, {2, 2}, {1, 1, 1, 1});
  add_float_conv(b, "x", "dw5", 32, 1, {5, 5}, 32, {1, 1}, {2, 2, 2, 2});
  add_float_conv(b, "x", "dw5s2", 32, 1, {5, 5}, 32, {2, 2}, {2, 2, 2, 2});
  add_float_conv(b, "dw3s2", "dw7relu", 32, 1, {3, 3}, 32, {1, 1}, {1, 1, 1, 1});
  b.node("Relu", {"dw7relu"}, {"dw7r"});
  add_float_conv(b, "dw3s2", "dw7silu", 32, 1, {3, 3}, 32, {1, 1}, {1, 1, 1, 1});
  b.node("Sigmoid", {"dw7silu"}, {"dw7sig"});
  b.node("Mul", {"dw7silu", "dw7sig"}, {"dw7s"});
  add_float_conv(b, "x", "dense", 16, 32, {3, 3}, 1, {1, 1}, {1, 1, 1, 1});
  b.node("Relu", {"dense"}, {"dense_r"});
  add_float_conv(b, "x", "pw", 48, 32, {1, 1}, 1, {1, 1}, {0, 0, 0, 0});
  add_float_conv(b, "x", "pws2", 24, 32, {1, 1}, 1, {2, 2}, {0, 0, 0, 0});
  add_float_conv(b, "x", "grouped", 32, 8, {3, 3}, 4, {1, 1}, {1, 1, 1, 1});
  add_float_conv(b, "x", "dilated", 16, 32, {3, 3}, 1, {1, 1}, {2, 2, 2, 2}, {2, 2});
  add_float_conv(b, "x", "patch", 24, 32, {2, 2}, 1, {2, 2}, {0, 0, 0, 0});
  add_float_conv(b, "img", "stem", 16, 3, {3, 3}, 1, {2, 2}, {1, 1, 1, 1});
  add_float_conv(b, "x", "bnconv", 32, 32, {3, 3}, 1, {1, 1}, {1, 1, 1, 1});
  b.initializer("bn_scale", ramp(Shape{32}, 0.02f, 0.7f));
  b.initializer("bn_bias", ramp(Shape{32}, 0.03f, -0.2f));
  b.initializer("bn_mean", ramp(Shape{32}, 0.01f, -0.1f));
  b.initializer("bn_var", ramp(Shape{32}, 0.04f, 0.5f));
  b.node("BatchNormalization", {"bnconv", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn"});
  b.node("Relu", {"bn"}, {"bn_r"});
  b.node("Add", {"bn_r", "x"}, {"residual"});
  const std::vector<std::string> outputs = {"dw3", "dw5", "dw5s2", "dw7r", "dw7s", "dense_r", "pw", "pws2",
                                            "grouped", "dilated", "patch", "stem", "residual"};
  for (const std::string& name : outputs) b.output(name, DType::F32);
  Case c{b.build(), {"x", "img"}, {ramp(Shape{1, 32, 14, 14}, 0.031f, -2.0f), ramp(Shape{1, 3, 28, 28}, 0.2f, -1.0f)},
         outputs};
  expect_no_warm_allocations(c, "float convolutions", {1, 2});
}

TEST(WarmRunAllocation, TheCounterSeesAllocations) {
  // The tests above can fail: the counter counts, aligned allocations too.
  g_allocations = 0;
  g_counting = true;
  auto* p = new std::vector<int>(100);
  auto* q = new (std::align_val_t{64}) float[16];
  g_counting = false;
  delete p;
  ::operator delete[](q, std::align_val_t{64});
  EXPECT_GE(g_allocations.load(), 3);
}

}  // namespace
}  // namespace onemodel
