// TransposedMatMulOp (see transposed_matmul_op.hpp; docs/design.md "Transposed product operands").
#include "optimized/passes/transposed_matmul_op.hpp"

#include <span>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/ops/batch_entries.hpp"
#include "optimized/passes/replaced_stage.hpp"
#include "reference/ops/matmul_helpers.hpp"

namespace onemodel::opt {
namespace {

// What prepare() works out once per plan for the plan's input shapes (a warm run allocates
// nothing for it): the product's shape rules on the operands as the MatMul sees them, and where
// each operand's values sit in its source.
struct StridedPlan {
  std::array<Shape, 2> sources;  // the input shapes the plan is for
  bool strided = false;          // false: the separate stages run (an operand of rank 1)
  products::MatMulShape shape;
  // Per operand: element strides in the source of each batch axis of shape.batch (0 where the
  // operand broadcasts), of a matrix row and of a matrix column.
  std::array<std::array<std::ptrdiff_t, kMaxRank>, 2> batch_strides{};
  std::array<std::ptrdiff_t, 2> row{}, col{};
  // The MatMul override makes one product of batches * m rows when every batch entry uses B's only
  // matrix and A's entries follow each other (op_matmul.cpp); so does this node, reading A's rows
  // with one stride, since the tiling decides which edge kernels run (and so, in fast mode, which
  // NaN payload an output keeps).
  bool merge_rows = false;
  // merge_rows where A's rows are not one stride apart across entries (A = Transpose(x, [0, 2, 1])
  // of a batch: a CNN's [N, C, T] map read as [N, T, C] by a Linear, N > 1): A's entries are
  // gathered into run scratch in row-major order, as the separate Transpose writes them, and the
  // one product of batches * m rows reads that copy: the unfused graph's product on the same
  // values, so the same bits, without the stages' per-call shapes and tensors.
  bool gather_a = false;
};

// The operand's shape and source strides as the MatMul sees it: the source's, permuted by the
// Transpose (output axis i is source axis perm[i], reversed axes when perm is absent; Transpose's
// rules, optimized/ops/op_transpose.cpp). False for a perm Transpose's infer would have refused.
bool operand_view(const Shape& source, const TransposedOperand& operand, std::array<std::int64_t, kMaxRank>& extents,
                  std::array<std::ptrdiff_t, kMaxRank>& strides) {
  const int rank = source.rank();
  std::array<std::ptrdiff_t, kMaxRank> contiguous{};
  std::ptrdiff_t step = 1;
  for (int d = rank; d-- > 0;) {
    contiguous[static_cast<std::size_t>(d)] = step;
    step *= source[d];
  }
  for (int i = 0; i < rank; ++i) {
    std::int64_t axis = i;
    if (operand.transpose != nullptr) {
      if (!operand.perm) {
        axis = rank - 1 - i;
      } else {
        if (static_cast<int>(operand.perm->size()) != rank) return false;
        axis = (*operand.perm)[static_cast<std::size_t>(i)];
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) return false;
      }
    }
    extents[static_cast<std::size_t>(i)] = source[static_cast<int>(axis)];
    strides[static_cast<std::size_t>(i)] = contiguous[static_cast<std::size_t>(axis)];
  }
  return true;
}

std::shared_ptr<StridedPlan> make_plan(const NodeInfo& matmul, const std::array<TransposedOperand, 2>& operands,
                                       const Shape& a, const Shape& b) {
  auto plan = std::make_shared<StridedPlan>();
  plan->sources = {a, b};
  std::array<std::array<std::int64_t, kMaxRank>, 2> extents{};
  std::array<std::array<std::ptrdiff_t, kMaxRank>, 2> strides{};
  for (std::size_t o = 0; o < 2; ++o) {
    if (plan->sources[o].rank() < 2 || !operand_view(plan->sources[o], operands[o], extents[o], strides[o])) return plan;
  }
  const int ra = a.rank(), rb = b.rank();
  plan->shape = products::matmul_shape(matmul, Shape(std::span<const std::int64_t>(extents[0].data(), static_cast<std::size_t>(ra))),
                                       Shape(std::span<const std::int64_t>(extents[1].data(), static_cast<std::size_t>(rb))));
  const int batch_rank = plan->shape.batch.rank();
  for (std::size_t o = 0; o < 2; ++o) {
    const int rank = o == 0 ? ra : rb;
    plan->row[o] = strides[o][static_cast<std::size_t>(rank - 2)];
    plan->col[o] = strides[o][static_cast<std::size_t>(rank - 1)];
    // Batch axis i of the product is the operand's axis i - (batch_rank - (rank - 2)), right-aligned.
    for (int i = 0; i < batch_rank; ++i) {
      const int axis = i - (batch_rank - (rank - 2));
      const bool broadcast = axis < 0 || extents[o][static_cast<std::size_t>(axis)] == 1;
      plan->batch_strides[o][static_cast<std::size_t>(i)] = broadcast ? 0 : strides[o][static_cast<std::size_t>(axis)];
    }
  }
  // op_matmul.cpp's a_batches_are_rows on the shapes; then whether A's rows in the source are one
  // stride apart across the batch entries too.
  const products::MatMulShape& s = plan->shape;
  bool unfused_merges = s.batch.element_count() > 1;
  bool rows_in_step = true;
  std::int64_t natural = 1;
  for (int i = batch_rank; i-- > 0;) {
    const std::size_t axis = static_cast<std::size_t>(i);
    if (s.b_batch_strides[axis] != 0) unfused_merges = false;
    if (s.batch[i] != 1 && s.a_batch_strides[axis] != natural) unfused_merges = false;
    if (s.batch[i] != 1 && plan->batch_strides[0][axis] != natural * s.m * plan->row[0]) rows_in_step = false;
    natural *= s.batch[i];
  }
  plan->merge_rows = unfused_merges;
  plan->gather_a = unfused_merges && !rows_in_step;
  plan->strided = true;
  return plan;
}

// The source's elements in row-major order: the tensor itself when contiguous, else a copy.
const float* contiguous_f32(const Tensor& t, Tensor& holder) {
  if (t.element_count() == 0) return nullptr;
  if (t.is_contiguous()) return t.data<float>().data();
  holder = t.contiguous();
  return holder.data<float>().data();
}

}  // namespace

TransposedMatMulOp::TransposedMatMulOp(std::unique_ptr<OpKernel> matmul, NodeInfo matmul_info,
                                       std::array<TransposedOperand, 2> operands, const OptimizedConfig& config)
    : matmul_(std::move(matmul)), matmul_info_(std::move(matmul_info)), operands_(std::move(operands)), config_(config) {}

void TransposedMatMulOp::infer(InferContext& context) const {
  std::array<InferOutput, 2> transposed;
  std::vector<InferInput> described(2);
  for (std::size_t o = 0; o < 2; ++o) {
    if (!context.has_input(o)) continue;
    const InferInput input{true, context.input_type(o), context.input_shape(o), context.known_value(o)};
    if (operands_[o].transpose == nullptr) {
      described[o] = input;
      continue;
    }
    std::vector<InferInput> source{input};
    std::vector<InferOutput> stated(1);
    stated[0].wanted = true;
    InferContext sub(*operands_[o].info, source, stated);
    operands_[o].transpose->infer(sub);
    if (sub.needs_runtime_values()) {
      context.require_runtime_values();
      return;
    }
    transposed[o] = stated[0];
    described[o] = InferInput{true, transposed[o].type, transposed[o].shape,
                              transposed[o].constant ? &transposed[o].value : nullptr};
  }
  std::vector<InferOutput> stated(1);
  stated[0].wanted = true;
  InferContext sub(matmul_info_, described, stated);
  matmul_->infer(sub);
  if (sub.needs_runtime_values()) {
    context.require_runtime_values();
    return;
  }
  if (stated[0].constant) {
    context.set_constant_output(0, stated[0].value);
  } else {
    context.set_output(0, stated[0].type, stated[0].shape);
  }
}

std::shared_ptr<const void> TransposedMatMulOp::prepare(const InferContext& context) const {
  if (context.input_type(0) != DType::F32 || context.input_type(1) != DType::F32) return nullptr;
  return make_plan(matmul_info_, operands_, context.input_shape(0), context.input_shape(1));
}

void TransposedMatMulOp::run(RunContext& context) const {
  const Tensor& a_t = context.input(0);
  const Tensor& b_t = context.input(1);
  if (a_t.dtype() != DType::F32 || b_t.dtype() != DType::F32) {
    run_stages(context);
    return;
  }
  // The plan's when the shapes are the plan's (always, in the optimized engine); else made now.
  std::shared_ptr<const StridedPlan> made;
  const auto* plan = static_cast<const StridedPlan*>(context.state());
  if (plan == nullptr || !(plan->sources[0] == a_t.shape() && plan->sources[1] == b_t.shape())) {
    made = make_plan(matmul_info_, operands_, a_t.shape(), b_t.shape());
    plan = made.get();
  }
  if (!plan->strided) {
    run_stages(context);
    return;
  }
  const products::MatMulShape& s = plan->shape;
  const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n),
                    k = static_cast<std::size_t>(s.k);
  const std::int64_t batches = s.batch.element_count();
  if (batches == 0 || m == 0 || n == 0) return;
  Tensor a_holder, b_holder;
  const float* a = contiguous_f32(a_t, a_holder);
  const float* b = contiguous_f32(b_t, b_holder);
  float* c = context.output(0).mutable_data<float>().data();
  const KernelContext kc{config_.isa, context.exact(), config_.pool};

  // Operand o's matrix of batch entry bi: its offset in the source.
  auto entry_offset = [&](std::size_t o, std::int64_t bi) {
    std::ptrdiff_t offset = 0;
    std::int64_t flat = bi;
    for (int i = s.batch.rank(); i-- > 0;) {
      offset += static_cast<std::ptrdiff_t>(flat % s.batch[i]) * plan->batch_strides[o][static_cast<std::size_t>(i)];
      flat /= s.batch[i];
    }
    return offset;
  };
  // One product of batch entry bi: each operand's matrix at its entry's offset in the source,
  // read with the permuted row and column strides.
  auto product = [&](const KernelContext& on, std::int64_t bi, std::size_t rows) {
    const std::ptrdiff_t a_off = entry_offset(0, bi), b_off = entry_offset(1, bi);
    const MatrixView a_view{a == nullptr ? nullptr : a + a_off, plan->row[0], plan->col[0]};
    const MatrixView b_view{b == nullptr ? nullptr : b + b_off, plan->row[1], plan->col[1]};
    gemm_f32(on, rows, n, k, a_view, b_view, c + bi * s.m * s.n, static_cast<std::ptrdiff_t>(n));
  };
  if (batches == 1) {
    product(kc, 0, m);
    return;
  }
  if (plan->gather_a) {
    // Entry bi's matrix, row r, column p at a + offset(bi) + r * row + p * col, gathered in the
    // Transpose's order; B is one matrix for every entry (merge_rows), read at its offset 0.
    const std::size_t rows = static_cast<std::size_t>(batches) * m;
    const Tensor gathered = context.scratch(DType::F32, Shape{static_cast<std::int64_t>(rows), s.k});
    float* g = gathered.mutable_data<float>().data();
    for (std::int64_t bi = 0; bi < batches && k > 0; ++bi) {
      const std::ptrdiff_t a_off = entry_offset(0, bi);
      for (std::size_t r = 0; r < m; ++r) {
        const float* row = a + a_off + static_cast<std::ptrdiff_t>(r) * plan->row[0];
        float* to = g + (static_cast<std::size_t>(bi) * m + r) * k;
        for (std::size_t p = 0; p < k; ++p) to[p] = row[static_cast<std::ptrdiff_t>(p) * plan->col[0]];
      }
    }
    const MatrixView a_view{g, static_cast<std::ptrdiff_t>(k), 1};
    const MatrixView b_view{b, plan->row[1], plan->col[1]};
    gemm_f32(kc, rows, n, k, a_view, b_view, c, static_cast<std::ptrdiff_t>(n));
    return;
  }
  if (plan->merge_rows) {
    // One product of batches * m rows: entry bi's rows follow entry bi - 1's at A's row stride.
    product(kc, 0, static_cast<std::size_t>(batches) * m);
    return;
  }
  // As the MatMul override (op_matmul.cpp): the entries as chunks or the pool inside each.
  const double per_entry_ns = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / 40.0;
  run_batch_entries(kc, batches, per_entry_ns, [&](const KernelContext& on, std::int64_t bi) { product(on, bi, m); });
}

// The Transposes into scratch, then the MatMul's kernel into the output, as the unfused graph.
void TransposedMatMulOp::run_stages(RunContext& context) const {
  std::vector<Tensor> inputs(2);
  for (std::size_t o = 0; o < 2; ++o) {
    inputs[o] = context.input(o);
    if (operands_[o].transpose != nullptr) {
      inputs[o] = run_replaced_stage(*operands_[o].info, *operands_[o].transpose, {inputs[o]}, context, false);
    }
  }
  run_replaced_stage(matmul_info_, *matmul_, inputs, context, true);
}

}  // namespace onemodel::opt
