// MatMulIntegerToFloat (see matmul_integer_to_float.hpp; spec-source int8.md, Operators and
// Graph rewrites; graph-passes.md "Why the "yes" rows preserve bits").
#include "optimized/passes/matmul_integer_to_float.hpp"

#include <atomic>
#include <exception>
#include <string>

#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/ops/integer_product_plan.hpp"
#include "optimized/passes/replaced_stage.hpp"

namespace onemodel::opt {
namespace {

// Where a float32 operand of the Mul or the Add sits along one row of n results: one value for
// every element (step 0) or one per column (step 1). Null when the operand is of another form.
struct RowOperand {
  const float* data = nullptr;
  std::ptrdiff_t step = 0;
};

// The operand's form when it is float32 and a scalar or a vector along the last axis (every
// extent 1 but the last, which is 1 or n). The caller has checked that the output's shape is the
// product's, so the broadcast repeats the operand over rows and adds no axis.
RowOperand row_operand(const Tensor& t, std::int64_t n) {
  if (t.dtype() != DType::F32) return {};
  const int rank = t.rank();
  for (int i = 0; i + 1 < rank; ++i) {
    if (t.shape()[i] != 1) return {};
  }
  const std::int64_t last = rank == 0 ? 1 : t.shape()[rank - 1];
  if (last == 1) return RowOperand{t.data<float>().data(), 0};
  if (last == n) return RowOperand{t.data<float>().data(), 1};
  return {};
}

// Cast's int32 -> float32 (reference/ops/cast_convert.hpp: static_cast<float> of the integer,
// one rounding to nearest even), in place: `row` holds n int32 results of the integer product and
// receives their float32 values. Each element is read before the same element is written.
void cast_row(void* row, std::size_t n) {
  const auto* in = static_cast<const std::int32_t*>(row);
  auto* out = static_cast<float*>(row);
  for (std::size_t j = 0; j < n; ++j) out[j] = static_cast<float>(in[j]);
}

}  // namespace

void MatMulIntegerToFloat::infer(InferContext& context) const {
  InferOutput previous;
  for (const LinearStage& stage : stages_) {
    std::vector<InferInput> described(stage.inputs.size());
    for (std::size_t i = 0; i < stage.inputs.size(); ++i) {
      const int from = stage.inputs[i];
      if (from == LinearStage::kPrevious) {
        described[i] = InferInput{true, previous.type, previous.shape, previous.constant ? &previous.value : nullptr};
      } else if (from >= 0 && context.has_input(static_cast<std::size_t>(from))) {
        const std::size_t k = static_cast<std::size_t>(from);
        described[i] = InferInput{true, context.input_type(k), context.input_shape(k), context.known_value(k)};
      }
    }
    std::vector<InferOutput> stated(1);
    stated[0].wanted = true;
    InferContext sub(stage.info, described, stated);
    stage.kernel->infer(sub);
    if (sub.needs_runtime_values()) {
      context.require_runtime_values();
      return;
    }
    previous = stated[0];
  }
  if (previous.constant) {
    context.set_constant_output(0, previous.value);
  } else {
    context.set_output(0, previous.type, previous.shape);
  }
}

std::shared_ptr<const void> MatMulIntegerToFloat::prepare(const InferContext& context) const {
  return make_integer_product_plan(context, 0, 1, config_.isa, 3);
}

void MatMulIntegerToFloat::run(RunContext& context) const {
  const auto* plan = static_cast<const IntegerProductPlan*>(context.state());
  const Tensor& a_in = context.input(0);
  const Tensor& b_in = context.input(1);
  if (a_in.rank() < 1 || b_in.rank() < 2) return run_stages(context);
  products::MatMulShape computed;
  const products::MatMulShape& s = integer_product_shape(context, plan, 0, 1, computed);
  const Tensor& y = context.output(0);
  // The broadcasts of the Mul and the Add added no axis and repeated nothing: the output is the
  // product's shape (stated by the stages' infer()).
  if (!integer_product_served(s) || y.dtype() != DType::F32 || y.shape() != s.out) return run_stages(context);
  const Tensor scale_t = context.input(kScale).contiguous();
  const RowOperand scale = row_operand(scale_t, s.n);
  Tensor bias_t;
  RowOperand bias;
  if (spec_.has_bias) {
    bias_t = context.input(kBias).contiguous();
    bias = row_operand(bias_t, s.n);
  }
  if (scale.data == nullptr || (spec_.has_bias && bias.data == nullptr)) return run_stages(context);
  const ZeroPoints za = integer_zero_points(context, 2);
  ZeroPoints zb_local(0);
  const std::span<const std::int32_t> zb = b_zero_points(context, plan, 3, zb_local);
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  // The kernel's zero points: one, or one per row of A / column of B (int8_gemm.hpp).
  if ((za.size() != 1 && za.size() != m) || (zb.size() != 1 && zb.size() != n)) return run_stages(context);
  const std::int64_t batches = s.batch.element_count();
  if (batches == 0 || m == 0 || n == 0) return;  // an empty product: the output is empty

  const Tensor at = a_in.contiguous();
  const Tensor bt = b_in.contiguous();
  const bool a_signed = at.dtype() == DType::I8, b_signed = bt.dtype() == DType::I8;
  // The operands' bytes (int8 read as two's complement by the kernel); none when empty.
  const auto* a_bytes = at.element_count() == 0 ? nullptr : reinterpret_cast<const std::uint8_t*>(tensor_bytes(at).data());
  const auto* b_bytes = bt.element_count() == 0 ? nullptr : reinterpret_cast<const std::uint8_t*>(tensor_bytes(bt).data());
  // B packed once per matrix of its batch: by the plan when B is constant, else here, per call,
  // before the parallel work (a chunk must not throw or allocate what can fail, thread_pool.hpp).
  const bool packed = plan != nullptr && !plan->packed_b.empty() && plan->b_shape == bt.shape();
  std::vector<int8::PackedB> local;
  if (!packed) {
    std::int64_t count = 1;  // matrices in B's batch (B has rank 2 or more here)
    for (int i = 0; i + 2 < bt.rank(); ++i) count *= bt.shape()[i];
    for (std::int64_t i = 0; i < count; ++i) {
      const int8::Operand view{b_bytes == nullptr ? nullptr : b_bytes + i * static_cast<std::int64_t>(k * n), b_signed, n};
      local.push_back(int8::pack_b(view, k, n, config_.isa));
    }
  }
  const std::vector<int8::PackedB>& panels = packed ? plan->packed_b : local;

  float* out = y.mutable_data<float>().data();
  const std::size_t blocks = (m + int8::kMc - 1) / int8::kMc;
  const std::size_t chunks = static_cast<std::size_t>(batches) * blocks;
  const Isa isa = config_.isa;
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  // One chunk: rows [row0, row0 + rows) of batch entry bi, the product then its finish.
  const auto chunk = [&](std::size_t index) {
    const auto bi = static_cast<std::int64_t>(index / blocks);
    const std::size_t row0 = (index % blocks) * int8::kMc;
    const std::size_t rows = std::min(int8::kMc, m - row0);
    std::int64_t a_off = 0, b_off = 0;
    products::batch_offsets(s, bi, a_off, b_off);
    const int8::Operand a_view{a_bytes == nullptr ? nullptr : a_bytes + (a_off * s.m + static_cast<std::int64_t>(row0)) * s.k,
                               a_signed, k};
    const std::span<const std::int32_t> za_rows =
        za.size() == 1 ? za.span() : za.span().subspan(row0, rows);
    float* block = out + (static_cast<std::size_t>(bi) * m + row0) * n;
    try {
      // The block's int32 results land in the output's own memory, then become floats in place.
      int8::gemm(rows, a_view, za_rows, panels[static_cast<std::size_t>(b_off)], zb,
                 reinterpret_cast<std::int32_t*>(block), n, nullptr, isa);
    } catch (...) {
      if (!failed.exchange(true)) failure = std::current_exception();
      return;
    }
    for (std::size_t r = 0; r < rows; ++r) {
      float* line = block + r * n;
      cast_row(line, n);
      // The Mul and the Add overrides' kernel (op_mul.cpp, op_add.cpp), operands in the graph's order.
      if (spec_.scale_first) {
        ew::binary_f32_run(isa, ew::BinaryOp::Mul, scale.data, scale.step, line, 1, line, n);
      } else {
        ew::binary_f32_run(isa, ew::BinaryOp::Mul, line, 1, scale.data, scale.step, line, n);
      }
      if (!spec_.has_bias) continue;
      if (spec_.bias_first) {
        ew::binary_f32_run(isa, ew::BinaryOp::Add, bias.data, bias.step, line, 1, line, n);
      } else {
        ew::binary_f32_run(isa, ew::BinaryOp::Add, line, 1, bias.data, bias.step, line, n);
      }
    }
  };
  const int8::Path& path = int8::path_for(isa);
  // Roughly the product's work (int8_gemm.cpp's estimate) plus the finish; it sets only how many
  // workers are woken, never what a chunk computes.
  const double estimate = 2.0 * static_cast<double>((k + 1) / 2) * static_cast<double>(batches) *
                              static_cast<double>(((m + path.mr - 1) / path.mr) * ((n + path.nr - 1) / path.nr)) +
                          static_cast<double>(batches) * static_cast<double>(m * n);
  if (config_.pool == nullptr || chunks == 1) {
    for (std::size_t i = 0; i < chunks; ++i) chunk(i);
  } else {
    config_.pool->parallel_for(chunks, estimate, [&](std::size_t i) { chunk(i); });
  }
  if (failure) std::rethrow_exception(failure);
}

// The replaced nodes one after the other, each on the previous one's result, exactly as the
// unfused graph runs them (the product's kernel without this plan: it works its own out).
void MatMulIntegerToFloat::run_stages(RunContext& context) const {
  Tensor previous;
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    const LinearStage& stage = stages_[s];
    std::vector<Tensor> inputs(stage.inputs.size());
    for (std::size_t i = 0; i < stage.inputs.size(); ++i) {
      const int from = stage.inputs[i];
      if (from == LinearStage::kPrevious) inputs[i] = previous;
      if (from >= 0 && context.has_input(static_cast<std::size_t>(from))) inputs[i] = context.input(static_cast<std::size_t>(from));
    }
    previous = run_replaced_stage(stage.info, *stage.kernel, inputs, context, s + 1 == stages_.size());
  }
}

}  // namespace onemodel::opt
