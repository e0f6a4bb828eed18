// Compact weights (spec/session.md section 9, from spec-source fp16.md "Keeping binary32 weights
// compact"): with WeightStorage::Binary16 or BFloat16 a session rounds the large constant weights
// of MatMul, Gemm and Conv and widens them where they are used. The result must equal, bit for
// bit, a binary32 model whose weights were rounded to the same format beforehand, at 1 and 4
// threads, in fast and exact mode, in both engines. The rounded-beforehand model is made here by
// a round trip through the conversions (core/tensor/half.cpp, verified exhaustively and against
// MPFR by half_conversion_test). The rules of which weights are compacted are checked on the
// model, and the memory they save on the heap.
#include <gtest/gtest.h>

// Heap accounting reads glibc's mallinfo2, which a sanitizer's allocator (it replaces malloc) does
// not keep: the memory test runs in builds without one.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ONEMODEL_TEST_SANITIZED_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ONEMODEL_TEST_SANITIZED_HEAP 1
#endif
#if defined(__GLIBC__) && !defined(ONEMODEL_TEST_SANITIZED_HEAP)
#define ONEMODEL_TEST_HEAP_ACCOUNTING 1
#include <malloc.h>
#endif

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/session/compact_weights.hpp"
#include "diff/graph_builder.hpp"
#include "onemodel/buffer.hpp"
#include "onemodel/error.hpp"
#include "onemodel/half.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "tests/kernels/variant_paths.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Values over many binades (so rounding to 8 or 11 significand bits changes most of them), with
// both signs, a few binary16 subnormals and exact zeros.
Tensor random_tensor(const Shape& shape, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-12, 3);
  std::uniform_int_distribution<int> pick(0, 63);
  Tensor t = Tensor::empty(DType::F32, shape);
  for (float& v : t.mutable_data<float>()) {
    const int p = pick(rng);
    float x = std::ldexp(mantissa(rng), exponent(rng)) * scale;
    if (p == 0) x = 0.0f;
    if (p == 1) x = std::ldexp(mantissa(rng), -20);  // a binary16 subnormal
    v = (p % 2 == 0) ? -x : x;
  }
  return t;
}

// The float32 values a compact weight stands for: each rounded to the format and widened back.
Tensor prerounded(const Tensor& t, WeightStorage storage) {
  Tensor out = Tensor::empty(DType::F32, t.shape());
  const auto in = t.data<float>();
  auto o = out.mutable_data<float>();
  for (std::size_t i = 0; i < in.size(); ++i) {
    o[i] = storage == WeightStorage::Binary16 ? half_bits_to_float(float_to_half_bits(in[i]))
                                              : bfloat16_bits_to_float(float_to_bfloat16_bits(in[i]));
  }
  return out;
}

// A model and its inputs; `weights` names the initializers the option should compact.
struct Case {
  std::string name;
  std::function<IrModel(const std::function<Tensor(const std::string&, const Tensor&)>&)> build;
  Feeds feeds;
};

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> bits;
  for (float v : t.data<float>()) bits.push_back(ir_builder::float_bits(v));
  return bits;
}

std::vector<Tensor> run(const IrModel& model, EngineKind engine, ExecutionMode mode, int threads,
                        WeightStorage storage, const Feeds& feeds) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.intra_op_threads = threads;
  options.weight_storage = storage;
  return Session::create(model, options).run(feeds);
}

IrAttribute int_attr(const std::string& name, std::int64_t v) { return ir_builder::int_attr(name, v); }
IrAttribute float_attr(const std::string& name, float v) { return ir_builder::float_attr(name, v); }

// The cases: each builds its model with `weight(name, value)` giving the weight's tensor (the
// original or the rounded one).
std::vector<Case> cases() {
  std::vector<Case> all;
  // MatMul with m = 1 (the row kernel, one strip per tile), 5 (one tile row) and 130 (several
  // tile rows: B filled whole per call); k = 300 crosses a k-block (256), n = 70 a ragged strip.
  for (std::int64_t m : {1, 5, 130}) {
    const Tensor w = random_tensor(Shape{300, 70}, 11);
    all.push_back(Case{"MatMul m=" + std::to_string(m),
                       [w, m](const auto& weight) {
                         GraphBuilder b(17);
                         b.input("x", DType::F32, Shape{m, 300}).initializer("w", weight("w", w));
                         b.node("MatMul", {"x", "w"}, {"y"}).output("y", DType::F32);
                         return b.build();
                       },
                       {{"x", random_tensor(Shape{m, 300}, 12)}}});
  }
  {
    // A batch of B matrices (rank-3 weight), and A with batch axes over one B.
    const Tensor w3 = random_tensor(Shape{2, 40, 33}, 21);
    all.push_back(Case{"MatMul batched B",
                       [w3](const auto& weight) {
                         GraphBuilder b(17);
                         b.input("x", DType::F32, Shape{2, 7, 40}).initializer("w", weight("w", w3));
                         b.node("MatMul", {"x", "w"}, {"y"}).output("y", DType::F32);
                         return b.build();
                       },
                       {{"x", random_tensor(Shape{2, 7, 40}, 22)}}});
  }
  {
    // MatMul, Add of a bias, Relu: linear-pack-fuse makes one LinearOp of them.
    const Tensor w = random_tensor(Shape{64, 48}, 31);
    const Tensor bias = random_tensor(Shape{48}, 32);
    all.push_back(Case{"MatMul+Add+Relu",
                       [w, bias](const auto& weight) {
                         GraphBuilder b(17);
                         b.input("x", DType::F32, Shape{3, 64}).initializer("w", weight("w", w)).initializer("bias", bias);
                         b.node("MatMul", {"x", "w"}, {"t"}).node("Add", {"t", "bias"}, {"u"});
                         b.node("Relu", {"u"}, {"y"}).output("y", DType::F32);
                         return b.build();
                       },
                       {{"x", random_tensor(Shape{3, 64}, 33)}}});
  }
  // Gemm with transB 0 and 1, alpha 1 (fused into a LinearOp) and alpha 0.5 (the Gemm kernel).
  for (int trans_b : {0, 1}) {
    for (float alpha : {1.0f, 0.5f}) {
      const Shape w_shape = trans_b != 0 ? Shape{45, 100} : Shape{100, 45};
      const Tensor w = random_tensor(w_shape, 41 + static_cast<std::uint32_t>(trans_b));
      const Tensor c = random_tensor(Shape{45}, 43);
      for (std::int64_t m : {1, 130}) {
        all.push_back(Case{"Gemm transB=" + std::to_string(trans_b) + " alpha=" + std::to_string(alpha) +
                               " m=" + std::to_string(m),
                           [w, c, trans_b, alpha, m](const auto& weight) {
                             GraphBuilder b(13);
                             b.input("x", DType::F32, Shape{m, 100}).initializer("w", weight("w", w)).initializer("c", c);
                             b.node("Gemm", {"x", "w", "c"}, {"y"},
                                    {int_attr("transB", trans_b), float_attr("alpha", alpha), float_attr("beta", 0.75f)});
                             b.output("y", DType::F32);
                             return b.build();
                           },
                           {{"x", random_tensor(Shape{m, 100}, 44)}}});
      }
    }
  }
  // Conv: 3x3 with padding (im2col strips), 1x1 (the input is the matrix), two groups, many
  // filters (several tile rows of A), and depthwise (widened into scratch), each with a bias.
  struct ConvCase {
    const char* name;
    std::int64_t n, c, h, w, m, k, group, pad;
  };
  for (const ConvCase& cc : {ConvCase{"Conv 3x3", 2, 8, 9, 11, 16, 3, 1, 1}, ConvCase{"Conv 1x1", 1, 40, 6, 7, 32, 1, 1, 0},
                            ConvCase{"Conv grouped", 1, 16, 8, 8, 32, 3, 2, 1},
                            ConvCase{"Conv 130 filters", 1, 4, 10, 10, 130, 3, 1, 0},
                            ConvCase{"Conv depthwise", 1, 128, 6, 6, 128, 3, 128, 1}}) {
    const Tensor w = random_tensor(Shape{cc.m, cc.c / cc.group, cc.k, cc.k}, 51);
    const Tensor bias = random_tensor(Shape{cc.m}, 52);
    all.push_back(Case{cc.name,
                       [w, bias, cc](const auto& weight) {
                         GraphBuilder b(17);
                         b.input("x", DType::F32, Shape{cc.n, cc.c, cc.h, cc.w}).initializer("w", weight("w", w));
                         b.initializer("b", bias);
                         b.node("Conv", {"x", "w", "b"}, {"y"},
                                {int_attr("group", cc.group),
                                 ir_builder::ints_attr("pads", {cc.pad, cc.pad, cc.pad, cc.pad})});
                         b.output("y", DType::F32);
                         return b.build();
                       },
                       {{"x", random_tensor(Shape{cc.n, cc.c, cc.h, cc.w}, 53)}}});
  }
  {
    // Conv then BatchNormalization: fast mode folds the statistics into W (conv-batchnorm-fold),
    // from the widened compact W as from the rounded binary32 one.
    const Tensor w = random_tensor(Shape{24, 8, 3, 3}, 61);
    const Tensor scale = random_tensor(Shape{24}, 62), shift = random_tensor(Shape{24}, 63);
    const Tensor mean = random_tensor(Shape{24}, 64);
    Tensor var = random_tensor(Shape{24}, 65);
    for (float& v : var.mutable_data<float>()) v = std::fabs(v) + 0.5f;
    all.push_back(Case{"Conv+BatchNormalization",
                       [w, scale, shift, mean, var](const auto& weight) {
                         GraphBuilder b(17);
                         b.input("x", DType::F32, Shape{1, 8, 7, 7}).initializer("w", weight("w", w));
                         b.initializer("s", scale).initializer("t", shift).initializer("m", mean).initializer("v", var);
                         b.node("Conv", {"x", "w"}, {"c"}, {ir_builder::ints_attr("pads", {1, 1, 1, 1})});
                         b.node("BatchNormalization", {"c", "s", "t", "m", "v"}, {"y"}).output("y", DType::F32);
                         return b.build();
                       },
                       {{"x", random_tensor(Shape{1, 8, 7, 7}, 66)}}});
  }
  return all;
}

IrModel original_model(const Case& c) {
  return c.build([](const std::string&, const Tensor& t) { return t; });
}

IrModel prerounded_model(const Case& c, WeightStorage storage) {
  return c.build([storage](const std::string&, const Tensor& t) { return prerounded(t, storage); });
}

void expect_compact_equals_prerounded(EngineKind engine) {
  for (const Case& c : cases()) {
    for (WeightStorage storage : {WeightStorage::Binary16, WeightStorage::BFloat16}) {
      const IrModel original = original_model(c);
      const IrModel rounded = prerounded_model(c, storage);
      // The option did compact the weight (else the comparison would be vacuous).
      IrModel probe = original;
      ASSERT_EQ(compact_weights(probe, storage).compacted, 1u) << c.name;
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        for (int threads : {1, 4}) {
          SCOPED_TRACE(c.name + (storage == WeightStorage::Binary16 ? " binary16" : " bfloat16") +
                       (mode == ExecutionMode::Exact ? " exact " : " fast ") + std::to_string(threads) + " threads");
          const std::uint64_t fallbacks = opt::OptimizedKernel::fallbacks_on_this_thread();
          const auto compact = run(original, engine, mode, threads, storage, c.feeds);
          // The optimized kernels served the compact weight themselves (a fallback to the reference
          // kernel widens it too and would give the same bits without testing the packing).
          EXPECT_EQ(opt::OptimizedKernel::fallbacks_on_this_thread(), fallbacks);
          const auto expected = run(rounded, engine, mode, threads, WeightStorage::Original, c.feeds);
          ASSERT_EQ(compact.size(), 1u);
          ASSERT_EQ(compact[0].dtype(), DType::F32);
          ASSERT_EQ(compact[0].shape(), expected[0].shape());
          EXPECT_EQ(bits_of(compact[0]), bits_of(expected[0]));
          // And the weights were really rounded: the unrounded model gives other bits.
          const auto unrounded = run(original, engine, mode, threads, WeightStorage::Original, c.feeds);
          EXPECT_NE(bits_of(compact[0]), bits_of(unrounded[0]));
        }
      }
    }
  }
}

// Every kernel path this CPU has (ONEMODEL_ISA caps the session's path, DESIGN.md rule 7): the
// widening loops and the packing differ by path.
TEST(CompactWeights, OptimizedEngineEqualsTheModelRoundedBeforehandBitForBit) {
  for (opt::Isa isa : opt::available_isas()) {
    SCOPED_TRACE("path " + std::string(opt::isa_name(isa)));
    ::setenv("ONEMODEL_ISA", std::string(opt::isa_name(isa)).c_str(), 1);
    expect_compact_equals_prerounded(EngineKind::Optimized);
    ::unsetenv("ONEMODEL_ISA");
    if (HasFatalFailure()) return;
  }
}

// The reference kernels do not widen a compact weight themselves: the half-precision adapter
// widens it into run scratch for them (spec/half-precision.md section 8).
TEST(CompactWeights, ReferenceEngineEqualsTheModelRoundedBeforehandBitForBit) {
  expect_compact_equals_prerounded(EngineKind::Reference);
}

// ---- which weights are compacted (fp16.md: input 1 of MatMul, Gemm, Conv; at least 1024
// values; read by nothing else; binary16 keeps a tensor beyond 65504 in binary32) ----

IrModel matmul_model(const Tensor& w, std::int64_t k) {
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{2, k}).initializer("w", w);
  b.node("MatMul", {"x", "w"}, {"y"}).output("y", DType::F32);
  return b.build();
}

const IrTensor& initializer(const IrModel& model, const std::string& name) {
  for (const IrTensor& t : model.graph.initializers) {
    if (t.name == name) return t;
  }
  throw std::runtime_error("no initializer " + name);
}

TEST(CompactWeights, AWeightOf1024ValuesIsCompactedAndOneOf1023IsNot) {
  IrModel big = matmul_model(random_tensor(Shape{32, 32}, 1), 32);
  const CompactionReport report = compact_weights(big, WeightStorage::Binary16);
  EXPECT_EQ(report.compacted, 1u);
  EXPECT_EQ(report.bytes_before, 4096u);
  EXPECT_EQ(report.bytes_after, 2048u);
  const IrTensor& w = initializer(big, "w");
  EXPECT_TRUE(w.compact);
  EXPECT_EQ(w.data_type, 10);
  EXPECT_EQ(w.data.size, 2048u);
  // The engines take the compact tensor as it is (tensor_from_ir shares its buffer): one copy.
  const Tensor shared = tensor_from_ir(w, "w");
  EXPECT_EQ(shared.dtype(), DType::F16);
  EXPECT_EQ(reinterpret_cast<const std::byte*>(shared.data<std::uint16_t>().data()), w.data.data);

  IrModel small = matmul_model(random_tensor(Shape{31, 33}, 1), 31);  // 1023 values
  EXPECT_EQ(compact_weights(small, WeightStorage::BFloat16).compacted, 0u);
  EXPECT_FALSE(initializer(small, "w").compact);
  EXPECT_EQ(initializer(small, "w").data_type, 1);
}

TEST(CompactWeights, AWeightReadByTwoNodesOrAsAnotherInputIsNotCompacted) {
  const Tensor w = random_tensor(Shape{40, 40}, 2);
  GraphBuilder two(17);
  two.input("x", DType::F32, Shape{2, 40}).initializer("w", w);
  two.node("MatMul", {"x", "w"}, {"y"}).node("MatMul", {"y", "w"}, {"z"}).output("z", DType::F32);
  IrModel model = two.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 0u);

  GraphBuilder same(17);  // W * W: input 0 as well
  same.initializer("w", w).node("MatMul", {"w", "w"}, {"y"}).output("y", DType::F32);
  model = same.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 0u);

  GraphBuilder gather(17);  // an embedding table (Gather's input 0) is not a product weight
  gather.input("i", DType::I64, Shape{3}).initializer("w", w).node("Gather", {"w", "i"}, {"y"}).output("y", DType::F32);
  model = gather.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 0u);

  GraphBuilder output(17);  // a weight that is also a graph output
  output.input("x", DType::F32, Shape{2, 40}).initializer("w", w).node("MatMul", {"x", "w"}, {"y"});
  output.output("y", DType::F32).output("w", DType::F32);
  model = output.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 0u);

  GraphBuilder input(17);  // a graph input's default: the caller may replace it
  input.input("x", DType::F32, Shape{2, 40}).input("w", DType::F32, Shape{40, 40}).initializer("w", w);
  input.node("MatMul", {"x", "w"}, {"y"}).output("y", DType::F32);
  model = input.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 0u);

  GraphBuilder bias(13);  // Gemm's C (input 2) is a bias, not a weight
  bias.input("x", DType::F32, Shape{2, 4}).initializer("w", random_tensor(Shape{4, 2000}, 3));
  bias.initializer("c", random_tensor(Shape{2000}, 4)).node("Gemm", {"x", "w", "c"}, {"y"}).output("y", DType::F32);
  model = bias.build();
  EXPECT_EQ(compact_weights(model, WeightStorage::Binary16).compacted, 1u);
  EXPECT_TRUE(initializer(model, "w").compact);
  EXPECT_FALSE(initializer(model, "c").compact);

  IrModel original = matmul_model(w, 40);  // Original: nothing changes
  EXPECT_EQ(compact_weights(original, WeightStorage::Original).compacted, 0u);
  EXPECT_FALSE(initializer(original, "w").compact);
}

TEST(CompactWeights, Binary16KeepsATensorBeyond65504InFloat32AndBFloat16CompactsIt) {
  for (float large : {65505.0f, 70000.0f, -1.0e6f, INFINITY, NAN}) {
    SCOPED_TRACE(large);
    Tensor w = random_tensor(Shape{32, 32}, 5);
    w.mutable_data<float>()[77] = large;
    IrModel b16 = matmul_model(w, 32);
    const CompactionReport report = compact_weights(b16, WeightStorage::Binary16);
    EXPECT_EQ(report.compacted, 0u);
    EXPECT_EQ(report.kept_float32, 1u);
    EXPECT_EQ(initializer(b16, "w").data_type, 1);
    IrModel bf16 = matmul_model(w, 32);
    EXPECT_EQ(compact_weights(bf16, WeightStorage::BFloat16).compacted, 1u);
    EXPECT_EQ(initializer(bf16, "w").data_type, 16);
  }
  // 65504 itself is the largest binary16: compacted, and the session still matches the model
  // rounded beforehand.
  Tensor w = random_tensor(Shape{32, 32}, 6);
  w.mutable_data<float>()[3] = -65504.0f;
  IrModel model = matmul_model(w, 32);
  IrModel probe = model;
  EXPECT_EQ(compact_weights(probe, WeightStorage::Binary16).compacted, 1u);
  const Feeds feeds{{"x", random_tensor(Shape{2, 32}, 7)}};
  const auto compact = run(model, EngineKind::Optimized, ExecutionMode::Exact, 1, WeightStorage::Binary16, feeds);
  const auto expected = run(matmul_model(prerounded(w, WeightStorage::Binary16), 32), EngineKind::Optimized,
                            ExecutionMode::Exact, 1, WeightStorage::Original, feeds);
  EXPECT_EQ(bits_of(compact[0]), bits_of(expected[0]));
  // A kept tensor runs as the binary32 model (nothing was rounded).
  w.mutable_data<float>()[4] = 1.0e5f;
  const auto kept = run(matmul_model(w, 32), EngineKind::Optimized, ExecutionMode::Exact, 1, WeightStorage::Binary16, feeds);
  const auto plain = run(matmul_model(w, 32), EngineKind::Optimized, ExecutionMode::Exact, 1, WeightStorage::Original, feeds);
  EXPECT_EQ(bits_of(kept[0]), bits_of(plain[0]));
}

// ---- the OneModel file (spec/format.md section 2.5): compact marks written, read back, and a
// mark on a tensor that cannot be a compact weight refused as InvalidModel ----

ByteView bytes_of(std::vector<std::byte> bytes) {
  auto owner = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return ByteView{owner->data(), owner->size(), owner};
}

ModelErrorKind read_error_kind(std::vector<std::byte> bytes, std::string& field) {
  try {
    (void)read_onemodel_bytes(bytes_of(std::move(bytes)), "test");
  } catch (const ModelError& e) {
    field = e.field_path();
    return e.kind();
  }
  ADD_FAILURE() << "the file was accepted";
  return ModelErrorKind::Io;
}

// The manifest bytes with `from` replaced by `to` (same length, so the header stays valid).
std::vector<std::byte> patched(std::vector<std::byte> bytes, const std::string& from, const std::string& to) {
  EXPECT_EQ(from.size(), to.size());
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) std::memcpy(bytes.data() + at, to.data(), to.size());
  return bytes;
}

TEST(CompactWeights, AOneModelFileKeepsTheMarksAndRefusesMisplacedOnes) {
  const Tensor w = random_tensor(Shape{40, 40}, 8);
  IrModel model = matmul_model(w, 40);
  ASSERT_EQ(compact_weights(model, WeightStorage::BFloat16).compacted, 1u);
  const std::vector<std::byte> file = write_onemodel_bytes(model);
  const IrModel back = read_onemodel_bytes(bytes_of(file), "test");
  EXPECT_TRUE(initializer(back, "w").compact);
  EXPECT_EQ(initializer(back, "w").data_type, 16);
  // Loaded with the default options it runs as the compact session of the original.
  const Feeds feeds{{"x", random_tensor(Shape{2, 40}, 9)}};
  const auto from_file = Session::create(back, SessionOptions{}).run(feeds);
  SessionOptions bf16;
  bf16.weight_storage = WeightStorage::BFloat16;
  const auto compact = Session::create(matmul_model(w, 40), bf16).run(feeds);
  EXPECT_EQ(bits_of(from_file[0]), bits_of(compact[0]));

  std::string field;
  EXPECT_EQ(read_error_kind(patched(file, "\"compact\":1", "\"compact\":2"), field), ModelErrorKind::InvalidModel);
  EXPECT_EQ(field, "manifest.graph.initializers[0].compact");
  // A float32 tensor marked compact.
  IrModel f32 = matmul_model(w, 40);
  f32.graph.initializers[0].compact = true;
  EXPECT_EQ(read_error_kind(write_onemodel_bytes(f32), field), ModelErrorKind::InvalidModel);
  EXPECT_EQ(field, "manifest.graph.initializers[0].compact");
  // A bfloat16 tensor read by an Add, not a product's input 1.
  GraphBuilder add(17);
  add.input("x", DType::F32, Shape{40, 40}).initializer("w", w).node("Add", {"x", "w"}, {"y"}).output("y", DType::F32);
  IrModel added = add.build();
  added.graph.initializers[0] = initializer(model, "w");
  EXPECT_EQ(read_error_kind(write_onemodel_bytes(added), field), ModelErrorKind::InvalidModel);
  // A mark on a tensor attribute (only main-graph initializers may carry one).
  IrModel constant = matmul_model(w, 40);
  IrNode node = ir_builder::node("Constant", {}, {"k"});
  IrAttribute value;
  value.name = "value";
  value.type = AttrType::Tensor;
  value.tensors.push_back(initializer(model, "w"));
  value.tensors[0].name = "";
  node.attributes.push_back(value);
  constant.graph.nodes.push_back(node);
  EXPECT_EQ(read_error_kind(write_onemodel_bytes(constant), field), ModelErrorKind::InvalidModel);
  EXPECT_NE(field.find(".compact"), std::string::npos) << field;
}

// ---- the widening the packing uses: spec/half-precision.md sections 3 and 5 over every pattern,
// against the conversions of core/tensor/half.cpp ----

TEST(CompactWeights, PackingWidensEveryPatternAsTheConversions) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    ASSERT_EQ(ir_builder::float_bits(opt::gemm::widen_binary16(bits)), ir_builder::float_bits(half_bits_to_float(bits)))
        << std::hex << h;
    ASSERT_EQ(ir_builder::float_bits(opt::gemm::widen_bfloat16(bits)),
              ir_builder::float_bits(bfloat16_bits_to_float(bits)))
        << std::hex << h;
  }
  // The row loops of every listed variant this CPU runs (gemm_half_list.inc: the AVX2 loop on
  // x86-64), each on its own path, over all patterns, with a tail of 3 so the vector body and the
  // scalar tail both run.
  std::vector<std::uint16_t> all(65536 + 3);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<float> out(all.size());
  opt::kernel_tests::expect_registry_form(opt::gemm::half_widen_variants(), "f16_gemm_widen");
  for (opt::Isa isa : opt::kernel_tests::variant_paths(opt::gemm::half_widen_variants())) {
    SCOPED_TRACE(std::string(opt::isa_name(isa)));
    for (opt::HalfFormat format : {opt::HalfFormat::Binary16, opt::HalfFormat::BFloat16}) {
      opt::gemm::widen_row(isa, format, all.data(), out.data(), all.size());
      for (std::size_t i = 0; i < all.size(); ++i) {
        const float want = format == opt::HalfFormat::Binary16 ? half_bits_to_float(all[i]) : bfloat16_bits_to_float(all[i]);
        ASSERT_EQ(ir_builder::float_bits(out[i]), ir_builder::float_bits(want)) << std::hex << all[i];
      }
    }
  }
}

// ---- memory: the session holds the 16-bit weights and no binary32 copy ----

#if defined(ONEMODEL_TEST_HEAP_ACCOUNTING)
// Heap bytes in use (malloc'ed, including mmapped blocks), less the blocks the shared tensor pool
// keeps idle for reuse (spec/tensors.md section 6).
std::int64_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd) -
         static_cast<std::int64_t>(BufferPool::shared().idle_bytes());
}
#endif

TEST(CompactWeights, ASessionHoldsHalfTheWeightBytes) {
#if !defined(ONEMODEL_TEST_HEAP_ACCOUNTING)
  GTEST_SKIP() << "heap accounting needs glibc's mallinfo2 and no sanitizer allocator";
#else
  // Four products with 1024 x 1024 weights: 16 MiB in binary32.
  const std::int64_t count = 4 * 1024 * 1024;
  auto build = [] {
    GraphBuilder b(17);
    b.input("x", DType::F32, Shape{1, 1024});
    std::string current = "x";
    for (int i = 0; i < 4; ++i) {
      const std::string w = "w" + std::to_string(i), y = "y" + std::to_string(i);
      b.initializer(w, random_tensor(Shape{1024, 1024}, 60 + static_cast<std::uint32_t>(i), 1.0f / 64));
      b.node("MatMul", {current, w}, {y});
      current = y;
    }
    b.output(current, DType::F32);
    return b.build();
  };
  for (EngineKind engine : {EngineKind::Optimized, EngineKind::Reference}) {
    SCOPED_TRACE(engine == EngineKind::Optimized ? "optimized" : "reference");
    std::int64_t held[2] = {0, 0};
    for (int compact = 0; compact < 2; ++compact) {
      IrModel model = build();
      SessionOptions options;
      options.engine = engine;
      options.intra_op_threads = 1;
      options.weight_storage = compact != 0 ? WeightStorage::Binary16 : WeightStorage::Original;
      const std::int64_t before = heap_in_use();  // the model's own binary32 bytes included
      Session session = Session::create(std::move(model), options);
      held[compact] = heap_in_use() - before;
    }
    // Binary32: the model's bytes stay, plus the engine's copy (or its packed one). Binary16: the
    // model's binary32 bytes are freed and the engine holds 2 bytes per weight. The difference is
    // at least the 2 bytes per weight that compaction saves.
    std::cout << (engine == EngineKind::Optimized ? "optimized" : "reference") << ": float32 session holds " << held[0]
              << " bytes, binary16 " << held[1] << " (the model's binary32 bytes freed), for " << count << " weights\n";
    EXPECT_GE(held[0] - held[1], 2 * count) << "binary32 " << held[0] << " bytes, binary16 " << held[1];
    // And the model's binary32 bytes (4 per weight, counted in `before`) were freed, with no 16-bit
    // copy left beside the engine's.
    EXPECT_LE(held[1] + 4 * count, 2 * count + (1 << 20)) << "binary16 session: " << held[1] << " bytes";
  }
#endif
}

}  // namespace
}  // namespace onemodel
