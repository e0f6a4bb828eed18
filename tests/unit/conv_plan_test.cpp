// What the Conv override's prepare() keeps for a plan (optimized/ops/op_conv.cpp,
// conv_override_plan.hpp): for constant float32 weights, the direct kernel's layout when the
// direct kernel takes the convolution on the session's path (conv_stem_takes) and then nothing
// else, since every run of that plan takes it; likewise Winograd's transformed filters alone when
// fast mode runs the layer by Winograd (winograd_takes); the product's packed weights otherwise.
// Checked on a network stem (3 -> 64 7x7/2), on 64 -> 64 3x3 over rows of 56 (Winograd in fast
// mode, the product in exact mode), on 16 -> 32 5x5 over rows of 56 (the direct kernel in fast
// mode, the product in exact mode) and on a strided 16 -> 32 layer (the product in both), with
// an AVX-512 configuration (prepare() packs with the path's scalar code for the direct kernel; the
// product's packing is that path's, so those cases need an AVX-512 machine). The runs of such
// plans are checked bit for bit elsewhere (conv_stem_test, diff_conv_test, the model checks).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/ops/conv_override_plan.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using ir_builder::ints_attr;

struct Layer {
  const char* name;
  std::int64_t cin, cout, hw, k, stride, pad;
};

[[maybe_unused]] Tensor filled(const Shape& shape, float value) {
  return Tensor::from_values<float>(DType::F32, shape,
                                    std::vector<float>(static_cast<std::size_t>(shape.element_count()), value));
}

// prepare()'s plan for the layer in `mode` on the AVX-512 path: (stem weights kept, Winograd's
// filters kept, packed weights kept).
using Kept = std::tuple<bool, bool, bool>;
[[maybe_unused]] Kept kept(const Layer& l, ExecutionMode mode) {
  IrNode node = ir_builder::node("Conv", {"x", "w", "b"}, {"y"});
  node.attributes = {ints_attr("kernel_shape", {l.k, l.k}), ints_attr("strides", {l.stride, l.stride}),
                     ints_attr("pads", {l.pad, l.pad, l.pad, l.pad})};
  const NodeInfo info(node, 17, mode);
  static opt::ThreadPool pool(1);
  const opt::OptimizedOpDef* def = opt::find_optimized_op("", "Conv", 17);
  EXPECT_NE(def, nullptr);
  if (def == nullptr) return {false, false, false};
  const std::unique_ptr<OpKernel> kernel = def->factory(info, opt::OptimizedConfig{opt::Isa::Avx512, &pool});
  const Tensor w = filled(Shape{l.cout, l.cin, l.k, l.k}, 0.5f);
  const Tensor b = filled(Shape{l.cout}, 0.25f);
  const InferInput inputs[3] = {{true, DType::F32, Shape{1, l.cin, l.hw, l.hw}, nullptr, false},
                                {true, DType::F32, w.shape(), &w, false},
                                {true, DType::F32, b.shape(), &b, false}};
  std::vector<InferOutput> outputs(1);
  outputs[0].wanted = true;
  InferContext context(info, inputs, outputs);
  kernel->infer(context);
  const std::shared_ptr<const void> state = kernel->prepare(context);
  const auto* plan = static_cast<const opt::conv_override::Plan*>(state.get());
  EXPECT_NE(plan, nullptr);
  if (plan == nullptr) return {false, false, false};
  EXPECT_TRUE(plan->served);
  return {!plan->stem_weights.empty(), !plan->winograd_weights.empty(),
          !plan->packed_weights.empty() || !plan->regions.empty()};
}

TEST(ConvPlan, TheDirectKernelsWeightsAloneWhenItTakesTheLayer) {
#if defined(__x86_64__)
  const Layer stem{"3 -> 64 7x7/2 at 224", 3, 64, 224, 7, 2, 3};
  const Layer wide{"64 -> 64 3x3 at 56", 64, 64, 56, 3, 1, 1};
  const Layer five{"16 -> 32 5x5 at 56", 16, 32, 56, 5, 1, 2};
  const Layer strided{"16 -> 32 3x3/2 at 56", 16, 32, 56, 3, 2, 1};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const bool fast = mode == ExecutionMode::Fast;
    SCOPED_TRACE(fast ? "fast" : "exact");
    EXPECT_EQ(kept(stem, mode), Kept(true, false, false)) << stem.name;
    if (!opt::isa_available(opt::Isa::Avx512)) continue;  // the product's packing runs AVX-512 code
    EXPECT_EQ(kept(wide, mode), Kept(false, fast, !fast)) << wide.name;
    EXPECT_EQ(kept(five, mode), Kept(fast, false, !fast)) << five.name;
    EXPECT_EQ(kept(strided, mode), Kept(false, false, true)) << strided.name;
  }
#else
  GTEST_SKIP() << "the direct kernel is x86-64 only";
#endif
}

}  // namespace
}  // namespace onemodel
