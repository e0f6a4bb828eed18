// ElementwiseProgramOp (elementwise_program.hpp): slot assignment once at construction, then per
// call fixed chunks of ew::kChunkElements (so threads never change a result) walked in blocks of
// kBlock elements through the steps.
#include "optimized/passes/elementwise_program.hpp"

#include <algorithm>
#include <stdexcept>

#include "optimized/runtime/half_conversions.hpp"

namespace onemodel::opt {
namespace {

// 512 floats per slot: a chain of the PP-OCRv4 detector (8 operators) needs 3 slots, 6 KB with
// the input and output blocks, well inside a 32 KB first-level data cache.
constexpr std::size_t kBlock = 512;

double step_ns_per_element(const EwStep& step) {
  if (!step.binary) return ew::unary_ns_per_element(step.unary.op);
  return step.op == ew::BinaryOp::Div ? 1.0 : 0.5;
}

// The opset-17 export of the erf-form GELU, Div(x, d) -> Erf -> Add(., c) -> Mul(x, .) -> Mul(., f)
// (Add and the Muls with their operands in either order, the constants any values): the program
// ew::UnaryOp::ErfGateChain runs with the five kernels' bits (lane_math.hpp erf_gate_chain). Its
// arguments go to `args`.
bool erf_gate_chain(const std::vector<EwStep>& steps, ew::UnaryArgs& args) {
  if (steps.size() != 5) return false;
  // A binary step of operator `op` whose operands are the value `v` and a constant (either side).
  auto with_constant = [](const EwStep& s, ew::BinaryOp op, int v, float& value) {
    if (!s.binary || s.op != op || s.a_const == s.b_const) return false;
    if ((s.a_const ? s.b : s.a) != v) return false;
    value = s.value;
    return true;
  };
  const EwStep& div = steps[0];
  if (!div.binary || div.op != ew::BinaryOp::Div || div.a_const || div.a != 0 || !div.b_const) return false;
  const EwStep& erf = steps[1];
  if (erf.binary || erf.unary.op != ew::UnaryOp::Erf || erf.a != 1) return false;
  float addend = 0.0f, factor = 0.0f;
  if (!with_constant(steps[2], ew::BinaryOp::Add, 2, addend)) return false;
  const EwStep& gate = steps[3];
  if (!gate.binary || gate.op != ew::BinaryOp::Mul || gate.a_const || gate.b_const) return false;
  if (!((gate.a == 0 && gate.b == 3) || (gate.a == 3 && gate.b == 0))) return false;
  if (!with_constant(steps[4], ew::BinaryOp::Mul, 4, factor)) return false;
  args = ew::UnaryArgs{ew::UnaryOp::ErfGateChain, div.value, addend};
  args.gamma = factor;
  return true;
}

}  // namespace

ElementwiseProgramOp::ElementwiseProgramOp(const OptimizedConfig& config, std::vector<EwStep> steps,
                                           int constant_rank, DType storage)
    : config_(config), steps_(std::move(steps)), constant_rank_(constant_rank), storage_(storage) {
  if (steps_.empty()) throw std::invalid_argument("ElementwiseProgramOp: no steps");
  if (storage_ != DType::F32 && storage_ != DType::F16 && storage_ != DType::BF16) {
    throw std::invalid_argument("ElementwiseProgramOp: storage type");
  }
  const int values = static_cast<int>(steps_.size()) + 1;  // value 0 is the input
  std::vector<int> last_use(static_cast<std::size_t>(values), -1);
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const EwStep& s = steps_[i];
    if (s.result != static_cast<int>(i) + 1) throw std::invalid_argument("ElementwiseProgramOp: result numbering");
    auto use = [&](int v, bool is_const) {
      if (is_const) return;
      if (v < 0 || v > static_cast<int>(i)) throw std::invalid_argument("ElementwiseProgramOp: operand order");
      last_use[static_cast<std::size_t>(v)] = static_cast<int>(i);
    };
    use(s.a, s.binary ? s.a_const : false);
    if (s.binary) use(s.b, s.b_const);
    ns_per_element_ += step_ns_per_element(s);
  }
  // Slots by liveness: a step's result takes a free slot (never one of its own operands', so no
  // kernel writes over an operand it is still reading); operands whose last reader this is are
  // then freed. The last step writes the output.
  std::vector<int> slot_of(static_cast<std::size_t>(values), -1);
  std::vector<int> free_slots;
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const EwStep& s = steps_[i];
    Resolved r{s};
    r.a_slot = (s.binary && s.a_const) ? -1 : slot_of[static_cast<std::size_t>(s.a)];
    r.b_slot = (!s.binary || s.b_const) ? -1 : slot_of[static_cast<std::size_t>(s.b)];
    if (i + 1 == steps_.size()) {
      r.out_slot = -2;
    } else if (!free_slots.empty()) {
      r.out_slot = free_slots.back();
      free_slots.pop_back();
    } else {
      r.out_slot = slots_++;
    }
    slot_of[static_cast<std::size_t>(s.result)] = r.out_slot;
    auto release = [&](int v, bool is_const) {
      if (is_const || v == 0 || last_use[static_cast<std::size_t>(v)] != static_cast<int>(i)) return;
      const int slot = slot_of[static_cast<std::size_t>(v)];
      if (std::find(free_slots.begin(), free_slots.end(), slot) == free_slots.end()) free_slots.push_back(slot);
    };
    release(s.a, s.binary && s.a_const);
    if (s.binary) release(s.b, s.b_const);
    // A result nobody reads (not produced by the pass, kept for safety) frees its slot at once.
    if (i + 1 < steps_.size() && last_use[static_cast<std::size_t>(s.result)] < 0) free_slots.push_back(r.out_slot);
    program_.push_back(r);
  }
  erf_gate_chain_ = storage_ == DType::F32 && erf_gate_chain(steps_, erf_gate_args_);
}

void ElementwiseProgramOp::infer(InferContext& context) const {
  context.require_type(0, {storage_});
  Shape shape = context.input_shape(0);
  if (constant_rank_ > shape.rank()) {
    // A one-element constant of higher rank only adds leading axes of extent 1 (numpy broadcasting).
    std::vector<std::int64_t> ones(static_cast<std::size_t>(constant_rank_), 1);
    shape = Shape::broadcast(shape, Shape(std::span<const std::int64_t>(ones)));
  }
  context.set_output(0, storage_, shape);
}

void ElementwiseProgramOp::run_block(Isa isa, const float* x, float* y, std::size_t count, float* scratch,
                                     bool round_steps) const {
  auto source = [&](int slot) -> const float* { return slot < 0 ? x : scratch + static_cast<std::size_t>(slot) * kBlock; };
  for (const Resolved& r : program_) {
    float* out = r.out_slot == -2 ? y : scratch + static_cast<std::size_t>(r.out_slot) * kBlock;
    const EwStep& s = r.step;
    if (!s.binary) {
      ew::unary_f32_run(isa, s.unary, source(r.a_slot), out, count);
      if (round_steps && r.out_slot != -2) round_through_16(isa, out, count, storage_ == DType::BF16);
      continue;
    }
    const float* a = s.a_const ? &s.value : source(r.a_slot);
    const float* b = s.b_const ? &s.value : source(r.b_slot);
    ew::binary_f32_run(isa, s.op, a, s.a_const ? 0 : 1, b, s.b_const ? 0 : 1, out, count);
    if (round_steps && r.out_slot != -2) round_through_16(isa, out, count, storage_ == DType::BF16);
  }
}

// Fixed chunks of ew::kChunkElements over the pool (so threads never change a result), each walked
// in blocks of kBlock. A 16-bit chain (spec/half-precision.md section 8.6) widens each block of X
// (exact) into a binary32 block, runs the steps with every result but the last rounded through the
// storage format where the adapter would store it, and narrows the last into Y.
void ElementwiseProgramOp::run(RunContext& context) const {
  const Tensor x = context.input(0).contiguous();
  const Tensor& y = context.output(0);
  const std::size_t n = static_cast<std::size_t>(x.element_count());
  if (n == 0) return;
  const bool half = storage_ != DType::F32;
  const bool bfloat16 = storage_ == DType::BF16;
  const float* x32 = half ? nullptr : x.data<float>().data();
  float* y32 = half ? nullptr : y.mutable_data<float>().data();
  const std::uint16_t* x16 = half ? x.data<std::uint16_t>().data() : nullptr;
  std::uint16_t* y16 = half ? y.mutable_data<std::uint16_t>().data() : nullptr;
  const KernelContext kernel{config_.isa, context.exact(), config_.pool};
  const std::size_t chunks = (n + ew::kChunkElements - 1) / ew::kChunkElements;
  // The slots, then (16-bit only) the widened X block and the binary32 Y block.
  const std::size_t slots = static_cast<std::size_t>(std::max(slots_, 1));
  const std::size_t scratch_floats = (slots + (half ? 2 : 0)) * kBlock;
  const double ns = static_cast<double>(n) * (ns_per_element_ + (half ? 1.0 : 0.0));
  kernel.parallel_for(chunks, ns, [&](std::size_t chunk) {
    // Per thread, grown once: steady-state calls allocate nothing.
    thread_local std::vector<float> scratch;
    if (scratch.size() < scratch_floats) scratch.resize(scratch_floats);
    float* xf = scratch.data() + slots * kBlock;
    float* yf = xf + kBlock;
    const std::size_t begin = chunk * ew::kChunkElements;
    const std::size_t end = std::min(n, begin + ew::kChunkElements);
    if (erf_gate_chain_) {
      ew::unary_f32_run(kernel.isa, erf_gate_args_, x32 + begin, y32 + begin, end - begin);
      return;
    }
    for (std::size_t i = begin; i < end; i += kBlock) {
      const std::size_t count = std::min(kBlock, end - i);
      if (!half) {
        run_block(kernel.isa, x32 + i, y32 + i, count, scratch.data(), false);
        continue;
      }
      widen_16_to_f32(kernel.isa, x16 + i, xf, count, bfloat16);
      run_block(kernel.isa, xf, yf, count, scratch.data(), true);
      narrow_f32_to_16(kernel.isa, yf, y16 + i, count, bfloat16);
    }
  });
}

}  // namespace onemodel::opt
