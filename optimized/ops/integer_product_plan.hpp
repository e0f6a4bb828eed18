// What the integer-product overrides (MatMulInteger, QLinearMatMul) share: the plan made once per
// input shapes (the shape rules' result and, when B is constant, B packed for the integer product
// kernel, one PackedB per matrix of B's batch) and the batched product into int32, written by the
// kernel of optimized/kernels/int8gemm (spec-source int8.md "Product kernel").
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "core/util/inline_list.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/matmul_helpers.hpp"

namespace onemodel::opt {

struct IntegerProductPlan {
  Shape a_shape, b_shape;
  products::MatMulShape shape;
  std::vector<int8::PackedB> packed_b;  // empty when B is not constant
  // B's zero points when they are constant (a per-column list is long: read once per plan, not on
  // every run); empty when not known at plan time.
  std::vector<std::int32_t> zb;
};

// The plan of a node whose A is input `a` and B input `b` (B packed when its value is known), with
// B's zero points from input `zb` when given and known.
std::shared_ptr<IntegerProductPlan> make_integer_product_plan(const InferContext& context, std::size_t a, std::size_t b,
                                                              Isa isa, std::optional<std::size_t> zb = std::nullopt);

// The plan's shape rules when the shapes are the plan's, else worked out now into `computed`.
const products::MatMulShape& integer_product_shape(const RunContext& context, const IntegerProductPlan* plan,
                                                   std::size_t a, std::size_t b, products::MatMulShape& computed);

// True when the kernel serves a product of this K (int8::kMaxK); else the reference kernel runs.
inline bool integer_product_served(const products::MatMulShape& s) {
  return static_cast<std::size_t>(s.k) <= int8::kMaxK;
}

// c [batch, m, n] = (A - za)(B - zb) for every batch entry, za and zb as the kernel takes them
// (one value, or one per row of A / column of B).
void run_integer_product(const RunContext& context, const IntegerProductPlan* plan, const products::MatMulShape& s,
                         std::size_t a, std::size_t b, std::span<const std::int32_t> za,
                         std::span<const std::int32_t> zb, std::int32_t* c, const OptimizedConfig& config);

// The zero points of input `i` as int32 (absent: one zero), in place up to 16 of them (a warm run
// allocates nothing, graph-runtime.md section 4).
using ZeroPoints = InlineList<std::int32_t, 16>;
ZeroPoints integer_zero_points(const RunContext& context, std::size_t i);
// B's zero points (input `i`): the plan's when it read them, else read now into `local`.
std::span<const std::int32_t> b_zero_points(const RunContext& context, const IntegerProductPlan* plan, std::size_t i,
                                            ZeroPoints& local);

}  // namespace onemodel::opt
