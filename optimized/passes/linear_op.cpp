// LinearOp (see linear_op.hpp; graph-passes.md "Why the "yes" rows preserve bits", "Tile
// epilogue", "Packed B").
#include "optimized/passes/linear_op.hpp"

#include <array>
#include <cstring>
#include <span>

#include "core/graph/half_convert.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"
#include "optimized/passes/replaced_stage.hpp"
#include "optimized/runtime/half_conversions.hpp"
#include "optimized/runtime/weight_packs.hpp"

namespace onemodel::opt {
namespace {

struct EpilogueState {
  const LinearSpec* spec = nullptr;
  Isa isa = Isa::Scalar;
  bool exact = false;
  // A 16-bit result (LinearSpec::storage): the output, n values per row.
  std::uint16_t* out16 = nullptr;
  std::size_t n = 0;
  // The residual R (LinearSpec::residual_input), contiguous, of C's shape: n values per row.
  const float* residual = nullptr;
  // Stop after the bias: the stages from the residual Add on run separately.
  bool bias_only = false;
};

float canonical(float v) noexcept {
  constexpr std::uint32_t kBits = 0x7FC00000u;
  float nan;
  std::memcpy(&nan, &kBits, sizeof nan);
  return v != v ? nan : v;
}

// Runs on each finished tile of C, after the product's exact-mode NaN rewrite: the bias as the
// separate operator adds it (one rounded addition per element), then the activation through the
// override's own element-wise kernel, row by row of the tile.
// A 16-bit result (spec/half-precision.md section 8.6) rounds the product's result (Gemm's with
// its C) and the Add's where a later stage reads them, and narrows the last stage's into the output.
void finish_tile(const void* state, float* c, std::ptrdiff_t ldc, std::size_t row, std::size_t col, std::size_t rows,
                 std::size_t cols) {
  const EpilogueState& s = *static_cast<const EpilogueState*>(state);
  const LinearSpec& spec = *s.spec;
  const float* bias = spec.bias.data() + col;
  const bool half = s.out16 != nullptr;
  const bool bfloat16 = spec.storage == DType::BF16;
  const bool add_node = spec.bias_kind == LinearSpec::Bias::AddNode;
  for (std::size_t r = 0; r < rows; ++r) {
    float* line = c + static_cast<std::ptrdiff_t>(r) * ldc;
    if (spec.bias_kind == LinearSpec::Bias::GemmC) {
      // Gemm's epilogue with alpha = 1 (op_gemm.cpp): alpha * acc is acc itself, then + beta*C.
      for (std::size_t j = 0; j < cols; ++j) {
        const float y = line[j] + bias[j];
        line[j] = s.exact ? canonical(y) : y;
      }
    }
    if (half && (add_node || spec.has_activation)) round_through_16(s.isa, line, cols, bfloat16);
    if (add_node) {
      // The Add override's kernel: canonical NaN as it stores it (elementwise.hpp).
      ew::binary_f32_run(s.isa, ew::BinaryOp::Add, line, 1, bias, 1, line, cols);
      if (half && spec.has_activation) round_through_16(s.isa, line, cols, bfloat16);
    }
    if (s.bias_only) continue;
    if (s.residual != nullptr) {
      // The residual Add override's own call on the finished sums and R, operands in the Add's
      // order (docs/design.md "Residual Add"); R is read at the output's own position.
      const float* r_line = s.residual + (row + r) * s.n + col;
      if (spec.residual_first) {
        ew::binary_f32_run(s.isa, ew::BinaryOp::Add, r_line, 1, line, 1, line, cols);
      } else {
        ew::binary_f32_run(s.isa, ew::BinaryOp::Add, line, 1, r_line, 1, line, cols);
      }
    }
    if (spec.has_activation) ew::unary_f32_run(s.isa, spec.activation, line, line, cols);
    if (half) narrow_f32_to_16(s.isa, line, s.out16 + (row + r) * s.n + col, cols, bfloat16);
  }
}

}  // namespace

LinearOp::LinearOp(std::vector<LinearStage> stages, LinearSpec spec, const Tensor& b, const OptimizedConfig& config)
    : stages_(std::move(stages)), spec_(std::move(spec)), b_shape_(b.shape()), config_(config) {
  const std::int64_t k = spec_.trans_b ? b.shape()[1] : b.shape()[0];
  const std::int64_t n = spec_.trans_b ? b.shape()[0] : b.shape()[1];
  k_ = static_cast<std::size_t>(k);
  n_ = static_cast<std::size_t>(n);
  const bool sixteen_bit = b.dtype() == DType::F16 || b.dtype() == DType::BF16;
  if (sixteen_bit) half_format_ = b.dtype() == DType::F16 ? HalfFormat::Binary16 : HalfFormat::BFloat16;
  if (sixteen_bit && spec_.storage == DType::F32) {
    compact_ = true;
    half_original_ = b.contiguous();  // the same buffer (initializers are contiguous)
    return;
  }
  // A half model's weight (spec/half-precision.md section 8.6) is widened as it is packed (exact:
  // the floats the adapter's product reads), once, into the binary32 layout of a float32 model;
  // the 16-bit original is then released by the pass. It is 16-bit to stage 0's infer.
  if (sixteen_bit) b_type_ = b.dtype();
  // Element (p, j) of B' is B[j][p] when transB (as op_gemm.cpp reads it).
  const std::ptrdiff_t row_stride = spec_.trans_b ? 1 : static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t col_stride = spec_.trans_b ? static_cast<std::ptrdiff_t>(k) : 1;
  const Tensor source = b.contiguous();  // the same buffer (initializers are contiguous)
  const void* element0 = source.element_count() == 0 ? nullptr : tensor_bytes(source).data();
  const PackSource kind = !sixteen_bit                 ? PackSource::Float32
                          : b.dtype() == DType::F16 ? PackSource::WidenedBinary16
                                                    : PackSource::WidenedBFloat16;
  const PackOrigin origin{&source, element0, row_stride, col_stride, kind};
  packed_ = shared_packed_b(config_.packs, config_.isa, k_, n_, origin, [&] {
    const Tensor dense = sixteen_bit ? widen_tensor(source) : source;
    const MatrixView view{dense.data<float>().data(), row_stride, col_stride};
    return pack_b_f32(config_.isa, k_, n_, view);
  });
}

const std::uint16_t* LinearOp::packed_half() const {
  std::call_once(half_once_, [this] {
    const auto bits = half_original_.data<std::uint16_t>().data();
    // Element (p, j) of B' is B[j][p] when transB (as op_gemm.cpp reads it).
    const HalfMatrixView view = spec_.trans_b ? HalfMatrixView{bits, 1, static_cast<std::ptrdiff_t>(k_), half_format_}
                                              : HalfMatrixView{bits, static_cast<std::ptrdiff_t>(n_), 1, half_format_};
    Tensor packed = Tensor::empty(DType::U16, Shape{static_cast<std::int64_t>(packed_half_b_size(config_.isa, k_, n_))});
    pack_half_b(config_.isa, k_, n_, view, packed.mutable_data<std::uint16_t>().data());
    half_ = std::move(packed);
    half_original_ = Tensor();
  });
  return half_.data<std::uint16_t>().data();
}

void LinearOp::infer(InferContext& context) const {
  InferOutput previous;
  for (const LinearStage& stage : stages_) {
    std::vector<InferInput> described(stage.inputs.size());
    for (std::size_t i = 0; i < stage.inputs.size(); ++i) {
      const int from = stage.inputs[i];
      if (from == LinearStage::kPrevious) {
        described[i] = InferInput{true, previous.type, previous.shape, previous.constant ? &previous.value : nullptr};
      } else if (from == 1 && &stage == &stages_.front()) {
        // B, released after packing: its type and shape are all the product's infer reads.
        described[i] = InferInput{true, b_type_, b_shape_, nullptr};
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

void LinearOp::run(RunContext& context) const {
  if (spec_.storage != DType::F32) {
    run_half_storage(context);
    return;
  }
  const Tensor& a_t = context.input(0);
  const std::size_t k = k_, n = n_;
  if (a_t.dtype() != DType::F32 || a_t.rank() == 0 || a_t.shape()[a_t.rank() - 1] != static_cast<std::int64_t>(k)) {
    run_stages(context);
    return;
  }
  const std::size_t rows = static_cast<std::size_t>(a_t.element_count()) / k;
  const Tensor a = a_t.contiguous();
  const MatrixView a_view{a.data<float>().data(), static_cast<std::ptrdiff_t>(k), 1};
  EpilogueState state{&spec_, config_.isa, context.exact()};
  state.n = n;
  Tensor residual;
  if (spec_.residual_input >= 0) {
    // The tile epilogue reads R in place only when R and the output are float32 of the product's
    // own shape (A's with n last); otherwise (a broadcasting Add) the separate stages run.
    // On the stack: a warm run allocates nothing here.
    std::array<std::int64_t, kMaxRank> extents{};
    const int rank = a_t.rank();
    for (int d = 0; d < rank; ++d) extents[static_cast<std::size_t>(d)] = a_t.shape()[d];
    extents[static_cast<std::size_t>(rank - 1)] = static_cast<std::int64_t>(n);
    const Shape product{std::span<const std::int64_t>(extents.data(), static_cast<std::size_t>(rank))};
    const Tensor& r = context.input(static_cast<std::size_t>(spec_.residual_input));
    if (r.dtype() != DType::F32 || !(r.shape() == product) || !(context.output(0).shape() == product)) {
      run_residual_apart(context, rows, a_view, product);
      return;
    }
    residual = r.contiguous();
    state.residual = residual.data<float>().data();
  }
  if (rows == 0) return;  // an empty product: the output is empty
  run_product(context, rows, a_view, context.output(0).mutable_data<float>().data(), &state);
}

// The product of `rows` rows of A into c (n values a row), each finished tile through the
// epilogue `state` describes (none when it has nothing to do).
void LinearOp::run_product(RunContext& context, std::size_t rows, const MatrixView& a_view, float* c,
                           const void* state) const {
  const std::size_t k = k_, n = n_;
  const EpilogueState& s = *static_cast<const EpilogueState*>(state);
  const GemmEpilogue epilogue{finish_tile, state};
  const bool any_epilogue = spec_.bias_kind != LinearSpec::Bias::None ||
                            (!s.bias_only && (spec_.has_activation || s.residual != nullptr));
  if (compact_) {
    const PackedHalfB packed{packed_half(), k, n, half_format_, config_.isa};
    const BStripSource source = packed_half_b_source(packed);
    gemm_f32_sourced(KernelContext{config_.isa, context.exact(), config_.pool}, rows, n, k, nullptr, a_view, &source,
                     MatrixView{}, c, static_cast<std::ptrdiff_t>(n), any_epilogue ? &epilogue : nullptr);
    return;
  }
  gemm_f32_packed(KernelContext{config_.isa, context.exact(), config_.pool}, rows, a_view, *packed_, c,
                  static_cast<std::ptrdiff_t>(n), any_epilogue ? &epilogue : nullptr);
}

// A residual the epilogue cannot read in place: the product and its bias into scratch (the
// bits of the separate product and bias Add, as the fused run's tiles have them before the
// residual), then the residual Add's stage and those after it by their own kernels, as the unfused
// graph runs them.
void LinearOp::run_residual_apart(RunContext& context, std::size_t rows, const MatrixView& a_view,
                                  const Shape& product) const {
  Tensor head = context.scratch(DType::F32, product);
  EpilogueState state{&spec_, config_.isa, context.exact()};
  state.n = n_;
  state.bias_only = true;
  if (rows > 0) run_product(context, rows, a_view, head.mutable_data<float>().data(), &state);
  run_stages(context, spec_.residual_stage, head);
}

// A 16-bit product (spec/half-precision.md section 8.6): A widened block by block as the product
// packs it (gemm_half.hpp) and B from its widened packing (the floats of the widened operands, in
// the same order, so the bits of the adapter's binary32 product), into a binary32 scratch C whose
// tiles the epilogue finishes and narrows into the output.
void LinearOp::run_half_storage(RunContext& context) const {
  const Tensor& a_t = context.input(0);
  const std::size_t k = k_, n = n_;
  if (a_t.dtype() != spec_.storage || a_t.rank() == 0 || a_t.shape()[a_t.rank() - 1] != static_cast<std::int64_t>(k)) {
    run_stages(context);
    return;
  }
  const std::size_t rows = static_cast<std::size_t>(a_t.element_count()) / k;
  if (rows == 0) return;
  const Tensor a = a_t.contiguous();
  const HalfMatrixView a_view{a.data<std::uint16_t>().data(), static_cast<std::ptrdiff_t>(k), 1, half_format_, config_.isa};
  const AStripSource a_source = half_a_source(a_view);
  // Working memory of the node, from the buffer pool (as the adapter's conversion buffers).
  const Tensor c = Tensor::empty(DType::F32, Shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(n)});
  const EpilogueState state{&spec_, config_.isa, context.exact(), context.output(0).mutable_data<std::uint16_t>().data(), n};
  const GemmEpilogue epilogue{finish_tile, &state};
  gemm_f32_packed_b_sourced_a(KernelContext{config_.isa, context.exact(), config_.pool}, rows, a_source, *packed_,
                              c.mutable_data<float>().data(), static_cast<std::ptrdiff_t>(n), &epilogue);
}

// The replaced nodes one after the other, each on the previous one's result, exactly as the
// unfused graph runs them.
void LinearOp::run_stages(RunContext& context, std::size_t first, Tensor previous) const {
  if (first == 0 && !context.has_input(1)) context.node().fail_unsupported(std::string("a fused product whose A is not float32 with k columns: ") + std::string(dtype_name(context.input(0).dtype())) + " " + context.input(0).shape().to_string());
  for (std::size_t s = first; s < stages_.size(); ++s) {
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
