// `attention` (graph-passes.md, does not preserve bits, so fast mode only):
//   MatMul([Mul] Q, [Mul] Kt) -> [Mul or Div by a constant scalar] -> [Add mask] -> Softmax(axis -1)
//     -> [Cast to float32]... -> MatMul(P, V)
// becomes one node running the fused kernel of kernels-attention.md (optimized/kernels/attention).
// The head-split transposes before Q, K and V ([b,s,h,d] -> [b,h,s,d]: perm (0,2,1,3); for K
// (0,2,3,1) from [b,s,h,d] or (0,1,3,2) from [b,h,s,d]) and the head-merge transpose (0,2,1,3)
// after are absorbed: the kernel reads and writes those layouts through strides. A Kt that is not
// such a transpose is not matched (the kernel reads keys with contiguous columns). The mask is any
// value; at run time it must broadcast to [b,h,sq,sk]. The optional Muls of Q and of Kt are by
// scalars (folded into the one scale); the Casts are float32 to float32 (identities).
//
// Every replaced value has one reader and is not a graph output. The fused node keeps the
// replaced nodes' kernels as stages: infer() chains theirs (shapes, types and errors are the
// model's), and a run the kernel does not serve (ranks other than 4, a broadcast between Q, K
// and V, another element type, a mask that does not broadcast as above) runs them one after the
// other. Shape-free at pass time.
#include <cmath>
#include <algorithm>
#include <array>
#include <optional>

#include "optimized/kernels/attention/attention.hpp"
#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/replaced_stage.hpp"

namespace onemodel::opt {
namespace {

bool is_onnx(const CompiledNode& node, const char* op) {
  return (node.ir->domain.empty() || node.ir->domain == "ai.onnx") && node.ir->op_type == op &&
         node.outputs.size() == 1 && node.outputs[0] >= 0;
}

// Where a stage input comes from.
struct Ref {
  enum class Kind : std::uint8_t { None, Fused, Stage, Constant };
  Kind kind = Kind::None;
  int index = 0;  // the fused node's input or an earlier stage
  Tensor value;   // Constant
};

struct Stage {
  std::unique_ptr<OpKernel> kernel;
  NodeInfo info;
  std::vector<Ref> inputs;
};

// How an operand sits in memory: [b,s,h,d] (a transpose was absorbed) or [b,h,s,d].
enum class Layout : std::uint8_t { Bshd, Bhsd };

struct AttentionSpec {
  Layout q = Layout::Bhsd, k = Layout::Bhsd, v = Layout::Bhsd;
  bool merge_heads = false;  // the output is written [b,s,h,dv] (head-merge transpose absorbed)
  float scale = 1.0f;        // scores = dot * scale (+ mask)
  bool has_mask = false;     // fused input 3
  // Fused inputs 4 and 5: scales of Q and of Kt computed in the graph (torchvision derives them
  // from the head size through Shape, folded only when the plan knows shapes); one element each at
  // run time, else the stages run.
  bool q_scale = false, k_scale = false;
};

class AttentionFusedOp final : public OpKernel {
 public:
  AttentionFusedOp(std::vector<Stage> stages, AttentionSpec spec, const OptimizedConfig& config)
      : stages_(std::move(stages)), spec_(spec), config_(config) {
    supports_exact = false;
  }

  void infer(InferContext& context) const override {
    std::vector<InferOutput> results(stages_.size());
    for (std::size_t s = 0; s < stages_.size(); ++s) {
      const Stage& stage = stages_[s];
      std::vector<InferInput> described(stage.inputs.size());
      for (std::size_t i = 0; i < stage.inputs.size(); ++i) {
        const Ref& r = stage.inputs[i];
        if (r.kind == Ref::Kind::Fused && context.has_input(static_cast<std::size_t>(r.index))) {
          const auto k = static_cast<std::size_t>(r.index);
          described[i] = InferInput{true, context.input_type(k), context.input_shape(k), context.known_value(k)};
        } else if (r.kind == Ref::Kind::Stage) {
          const InferOutput& o = results[static_cast<std::size_t>(r.index)];
          described[i] = InferInput{true, o.type, o.shape, o.constant ? &o.value : nullptr};
        } else if (r.kind == Ref::Kind::Constant) {
          described[i] = InferInput{true, r.value.dtype(), r.value.shape(), &r.value};
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
      results[s] = std::move(stated[0]);
    }
    const InferOutput& last = results.back();
    if (last.constant) {
      context.set_constant_output(0, last.value);
    } else {
      context.set_output(0, last.type, last.shape);
    }
  }

  void run(RunContext& context) const override {
    if (!run_fused(context)) run_stages(context);
  }

 private:
  // The kernel's case; false when it does not apply (then the stages run).
  bool run_fused(RunContext& context) const {
    for (std::size_t i = 0; i < 3; ++i) {
      if (context.input(i).dtype() != DType::F32 || context.input(i).rank() != 4) return false;
    }
    const Shape& qs = context.input(0).shape();
    const Shape& ks = context.input(1).shape();
    const Shape& vs = context.input(2).shape();
    // Extents (b, h, s, d) of each operand in its layout.
    const auto dims = [](const Shape& s, Layout layout) {
      return layout == Layout::Bshd ? std::array<std::int64_t, 4>{s[0], s[2], s[1], s[3]}
                                    : std::array<std::int64_t, 4>{s[0], s[1], s[2], s[3]};
    };
    const auto q = dims(qs, spec_.q), k = dims(ks, spec_.k), v = dims(vs, spec_.v);
    const std::int64_t b = q[0], h = q[1], sq = q[2], d = q[3], sk = k[2], dv = v[3];
    // No broadcast between the batch and head extents of the operands, matching head sizes.
    if (k[0] != b || v[0] != b || k[1] != h || v[1] != h || k[3] != d || v[2] != sk) return false;
    const Shape expected = spec_.merge_heads ? Shape{b, sq, h, dv} : Shape{b, h, sq, dv};
    const Tensor& y = context.output(0);
    if (!(y.shape() == expected) || y.dtype() != DType::F32) return false;
    if (d == 0 || sk == 0) return false;  // the stages state what an empty product gives
    AttentionArgs a;
    Tensor mask;
    if (spec_.has_mask) {
      mask = context.input(3);
      if (mask.dtype() != DType::F32 || mask.rank() > 4) return false;
      std::int64_t md[4] = {1, 1, 1, 1};
      for (int i = 0; i < mask.rank(); ++i) md[4 - mask.rank() + i] = mask.shape()[i];
      const std::int64_t want[4] = {b, h, sq, sk};
      for (int i = 0; i < 4; ++i) {
        if (md[i] != 1 && md[i] != want[i]) return false;  // the broadcast would change the output
      }
      mask = mask.contiguous();
      a.mask = mask.data<float>().data();
      // Right-aligned broadcast to (b, h, sq, sk): an extent of 1 is a stride of 0.
      a.mask_column_stride = md[3] == 1 ? 0 : 1;
      a.mask_strides.row = md[2] == 1 ? 0 : static_cast<std::ptrdiff_t>(md[3]);
      a.mask_strides.head = md[1] == 1 ? 0 : static_cast<std::ptrdiff_t>(md[2] * md[3]);
      a.mask_strides.batch = md[0] == 1 ? 0 : static_cast<std::ptrdiff_t>(md[1] * md[2] * md[3]);
    }
    float scale = spec_.scale;
    for (std::size_t i = 4; i < 6; ++i) {
      if (!(i == 4 ? spec_.q_scale : spec_.k_scale)) continue;
      const Tensor& t = context.input(i);
      if (t.dtype() != DType::F32 || t.element_count() != 1 || t.rank() > 4) return false;
      scale *= t.contiguous().data<float>()[0];
    }
    if (y.element_count() == 0) return true;
    const Tensor qt = context.input(0).contiguous();
    const Tensor kt = context.input(1).contiguous();
    const Tensor vt = context.input(2).contiguous();
    a.q = qt.data<float>().data();
    a.k = kt.data<float>().data();
    a.v = vt.data<float>().data();
    a.out = y.mutable_data<float>().data();
    a.batch = static_cast<std::size_t>(b);
    a.heads = static_cast<std::size_t>(h);
    a.q_len = static_cast<std::size_t>(sq);
    a.kv_len = static_cast<std::size_t>(sk);
    a.d = static_cast<std::size_t>(d);
    a.dv = static_cast<std::size_t>(dv);
    a.kv_group = 1;
    // Strides (batch, head, row) of a contiguous operand with rows of `cols` elements.
    const auto strides = [](Layout layout, std::int64_t heads, std::int64_t rows, std::int64_t cols) {
      return layout == Layout::Bshd
                 ? AttentionStrides{static_cast<std::ptrdiff_t>(rows * heads * cols), static_cast<std::ptrdiff_t>(cols),
                                    static_cast<std::ptrdiff_t>(heads * cols)}
                 : AttentionStrides{static_cast<std::ptrdiff_t>(heads * rows * cols),
                                    static_cast<std::ptrdiff_t>(rows * cols), static_cast<std::ptrdiff_t>(cols)};
    };
    a.q_strides = strides(spec_.q, h, sq, d);
    a.k_strides = strides(spec_.k, h, sk, d);
    a.v_strides = strides(spec_.v, h, sk, dv);
    a.out_strides = strides(spec_.merge_heads ? Layout::Bshd : Layout::Bhsd, h, sq, dv);
    // kernels-attention.md: s = mask + dot * scale, the form of the unfused Mul then Add.
    a.scale = scale;
    attention_f32(KernelContext{config_.isa, context.exact(), config_.pool}, a);
    return true;
  }

  // The replaced nodes one after the other, as the unfused graph runs them.
  void run_stages(RunContext& context) const {
    std::vector<Tensor> results(stages_.size());
    for (std::size_t s = 0; s < stages_.size(); ++s) {
      const Stage& stage = stages_[s];
      std::vector<Tensor> inputs(stage.inputs.size());
      for (std::size_t i = 0; i < stage.inputs.size(); ++i) {
        const Ref& r = stage.inputs[i];
        if (r.kind == Ref::Kind::Fused && context.has_input(static_cast<std::size_t>(r.index))) {
          inputs[i] = context.input(static_cast<std::size_t>(r.index));
        } else if (r.kind == Ref::Kind::Stage) {
          inputs[i] = results[static_cast<std::size_t>(r.index)];
        } else if (r.kind == Ref::Kind::Constant) {
          inputs[i] = r.value;
        }
      }
      results[s] = run_replaced_stage(stage.info, *stage.kernel, inputs, context, s + 1 == stages_.size());
    }
  }

  std::vector<Stage> stages_;
  AttentionSpec spec_;
  OptimizedConfig config_;
};

// The producer of `id` when the chain may absorb it: `op`, one reader, not a graph output.
int absorbable(PassGraph& graph, int id, const char* op) {
  if (id < 0 || graph.is_output(id) || graph.readers(id) != 1) return -1;
  const int p = graph.producer(id);
  if (p < 0 || !is_onnx(graph.nodes()[static_cast<std::size_t>(p)], op)) return -1;
  return p;
}

// The perm of a Transpose node when it is one of `perms`, else nullopt.
bool transpose_is(const CompiledNode& node, std::initializer_list<std::array<std::int64_t, 4>> perms,
                  std::array<std::int64_t, 4>& which) {
  if (node.inputs.size() != 1 || node.inputs[0] < 0) return false;
  const std::vector<std::int64_t> perm = node.info.get_ints("perm");
  if (perm.size() != 4) return false;
  for (const auto& p : perms) {
    if (std::equal(p.begin(), p.end(), perm.begin())) {
      which = p;
      return true;
    }
  }
  return false;
}

// A Cast to float32 of a value already float32: the identity. Exporters write one or two between
// the Softmax and the P V product (the probabilities cast back to the query's dtype).
bool same_type_cast(const PassGraph& graph, const CompiledNode& node) {
  return node.inputs.size() == 1 && node.inputs[0] >= 0 && graph.known_f32(node.inputs[0]) &&
         node.info.get_int("to", 0) == static_cast<std::int64_t>(1);  // TensorProto FLOAT
}

// A float32 constant with one element (the scale), or nullopt.
std::optional<float> scalar(const PassGraph& graph, int id) {
  const Tensor* t = graph.constant_value(id);
  if (t == nullptr || t->dtype() != DType::F32 || t->element_count() != 1 || t->rank() > 4) return std::nullopt;
  return t->contiguous().data<float>()[0];
}

// Builds the fused node from the chain ending in the MatMul `pv_index` when it matches.
bool fuse_at(PassGraph& graph, std::size_t pv_index) {
  std::vector<CompiledNode>& nodes = graph.nodes();
  const CompiledNode& pv = nodes[pv_index];
  if (!is_onnx(pv, "MatMul") || pv.inputs.size() != 2) return false;
  // Same-type Casts between the Softmax and the product, innermost last.
  std::vector<int> casts;
  int probs = pv.inputs[0];
  for (int cast = absorbable(graph, probs, "Cast"); cast >= 0 && same_type_cast(graph, nodes[static_cast<std::size_t>(cast)]);
       cast = absorbable(graph, probs, "Cast")) {
    casts.push_back(cast);
    probs = nodes[static_cast<std::size_t>(cast)].inputs[0];
  }
  const int softmax = absorbable(graph, probs, "Softmax");
  if (softmax < 0) return false;
  const CompiledNode& sm = nodes[static_cast<std::size_t>(softmax)];
  // Softmax over the last axis: the default from opset 13; before it the default is 1 (and -1
  // coerces to rows of the last axis, the same thing), so it must be written.
  if (sm.inputs.size() != 1 || (sm.ir->opset < 13 && !sm.info.has("axis")) || sm.info.get_int("axis", -1) != -1) {
    return false;
  }

  AttentionSpec spec;
  std::vector<int> chain;  // node indices of the replaced nodes (besides the transposes)
  int scores = sm.inputs[0];
  int mask = -1;
  // [Add mask]: the other operand is the scores chain (a scaled MatMul or the MatMul itself).
  if (const int add = absorbable(graph, scores, "Add"); add >= 0 && nodes[static_cast<std::size_t>(add)].inputs.size() == 2) {
    const CompiledNode& node = nodes[static_cast<std::size_t>(add)];
    for (int side = 0; side < 2; ++side) {
      const int candidate = node.inputs[static_cast<std::size_t>(side)];
      if (absorbable(graph, candidate, "Mul") >= 0 || absorbable(graph, candidate, "Div") >= 0 ||
          absorbable(graph, candidate, "MatMul") >= 0) {
        mask = node.inputs[static_cast<std::size_t>(1 - side)];
        scores = candidate;
        break;
      }
    }
    if (mask < 0 || !graph.known_f32(mask)) return false;
    chain.push_back(add);
  }
  // [Mul or Div by a constant scalar]
  int qk = -1;
  if (const int mul = absorbable(graph, scores, "Mul"); mul >= 0) {
    const CompiledNode& node = nodes[static_cast<std::size_t>(mul)];
    if (node.inputs.size() != 2) return false;
    for (int side = 0; side < 2 && qk < 0; ++side) {
      const auto c = scalar(graph, node.inputs[static_cast<std::size_t>(1 - side)]);
      if (c && absorbable(graph, node.inputs[static_cast<std::size_t>(side)], "MatMul") >= 0) {
        spec.scale = *c;
        qk = absorbable(graph, node.inputs[static_cast<std::size_t>(side)], "MatMul");
      }
    }
    if (qk < 0) return false;
    chain.push_back(mul);
  } else if (const int div = absorbable(graph, scores, "Div"); div >= 0) {
    const CompiledNode& node = nodes[static_cast<std::size_t>(div)];
    const auto c = node.inputs.size() == 2 ? scalar(graph, node.inputs[1]) : std::nullopt;
    if (!c || *c == 0.0f) return false;
    // The kernel multiplies by the reciprocal (rounded once): a last-bit difference, fast mode.
    spec.scale = 1.0f / *c;
    qk = absorbable(graph, node.inputs[0], "MatMul");
    if (qk < 0) return false;
    chain.push_back(div);
  } else {
    qk = absorbable(graph, scores, "MatMul");
    if (qk < 0) return false;
  }
  const CompiledNode& qk_node = nodes[static_cast<std::size_t>(qk)];
  if (qk_node.inputs.size() != 2) return false;

  // [Mul of Q or of Kt by a scalar]: exporters that scale each operand by the fourth root of 1/d
  // (torchvision's multi-head attention) or Q alone (Swin). A constant scalar multiplies into the
  // kernel's one scale; another value (a scale computed from the shape, second operand of the Mul)
  // becomes a fused input that must hold one element at run time. Other roundings than the
  // unfused Muls: fast mode only, like the pass.
  std::vector<int> operand_muls;
  const auto through_scale = [&](int& id, int& runtime_scale) {
    const int mul = absorbable(graph, id, "Mul");
    if (mul < 0 || nodes[static_cast<std::size_t>(mul)].inputs.size() != 2) return;
    const CompiledNode& node = nodes[static_cast<std::size_t>(mul)];
    const int first = node.inputs[0], second = node.inputs[1];
    if (first < 0 || second < 0 || !graph.known_f32(first) || !graph.known_f32(second)) return;
    if (const auto c = scalar(graph, second)) {
      spec.scale *= *c;
      id = first;
    } else if (const auto c0 = scalar(graph, first)) {
      spec.scale *= *c0;
      id = second;
    } else if (graph.constant_value(second) == nullptr) {
      runtime_scale = second;
      id = first;
    } else {
      return;  // a constant of more than one element: a scale per position, not matched
    }
    operand_muls.push_back(mul);
  };
  int q_operand = qk_node.inputs[0], k_operand = qk_node.inputs[1];
  int q_scale = -1, k_scale = -1;
  through_scale(q_operand, q_scale);
  through_scale(k_operand, k_scale);
  spec.q_scale = q_scale >= 0;
  spec.k_scale = k_scale >= 0;

  // The operands, looking through the head-split transposes.
  std::array<std::int64_t, 4> perm{};
  int q = q_operand, k = -1, v = pv.inputs[1];
  std::vector<int> transposes;
  if (const int t = absorbable(graph, q, "Transpose"); t >= 0 && transpose_is(nodes[static_cast<std::size_t>(t)], {{0, 2, 1, 3}}, perm)) {
    spec.q = Layout::Bshd;
    q = nodes[static_cast<std::size_t>(t)].inputs[0];
    transposes.push_back(t);
  }
  const int kt = absorbable(graph, k_operand, "Transpose");
  if (kt < 0 || !transpose_is(nodes[static_cast<std::size_t>(kt)], {{0, 2, 3, 1}, {0, 1, 3, 2}}, perm)) return false;
  spec.k = perm[1] == 2 ? Layout::Bshd : Layout::Bhsd;
  k = nodes[static_cast<std::size_t>(kt)].inputs[0];
  transposes.push_back(kt);
  if (const int t = absorbable(graph, v, "Transpose"); t >= 0 && transpose_is(nodes[static_cast<std::size_t>(t)], {{0, 2, 1, 3}}, perm)) {
    spec.v = Layout::Bshd;
    v = nodes[static_cast<std::size_t>(t)].inputs[0];
    transposes.push_back(t);
  }
  if (!graph.known_f32(q) || !graph.known_f32(k) || !graph.known_f32(v)) return false;
  int out = pv.outputs[0];
  int merge = -1;
  if (!graph.is_output(out) && graph.readers(out) == 1) {
    const int reader = graph.only_reader(out);
    if (reader >= 0 && is_onnx(nodes[static_cast<std::size_t>(reader)], "Transpose") &&
        transpose_is(nodes[static_cast<std::size_t>(reader)], {{0, 2, 1, 3}}, perm)) {
      merge = reader;
      spec.merge_heads = true;
      out = nodes[static_cast<std::size_t>(reader)].outputs[0];
    }
  }
  spec.has_mask = mask >= 0;

  // The stages in dependency order: transposes, operand scales (each reads a transpose or a fused
  // input), QK, scale, mask, softmax, casts, PV, merge.
  std::vector<int> order = transposes;
  order.insert(order.end(), operand_muls.begin(), operand_muls.end());
  order.push_back(qk);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) order.push_back(*it);
  order.push_back(softmax);
  for (auto it = casts.rbegin(); it != casts.rend(); ++it) order.push_back(*it);
  order.push_back(static_cast<int>(pv_index));
  if (merge >= 0) order.push_back(merge);
  const std::vector<int> fused_inputs{q, k, v, mask, q_scale, k_scale};
  std::vector<Stage> stages;
  for (std::size_t s = 0; s < order.size(); ++s) {
    CompiledNode& node = nodes[static_cast<std::size_t>(order[s])];
    Stage stage{nullptr, node.info, {}};
    for (int id : node.inputs) {
      Ref r;
      for (std::size_t p = 0; p < s && r.kind == Ref::Kind::None; ++p) {
        if (id >= 0 && nodes[static_cast<std::size_t>(order[p])].outputs[0] == id) r = Ref{Ref::Kind::Stage, static_cast<int>(p), {}};
      }
      for (std::size_t f = 0; f < fused_inputs.size() && r.kind == Ref::Kind::None; ++f) {
        if (id >= 0 && fused_inputs[f] == id) r = Ref{Ref::Kind::Fused, static_cast<int>(f), {}};
      }
      if (r.kind == Ref::Kind::None && id >= 0) {
        const Tensor* c = graph.constant_value(id);
        if (c == nullptr) return false;  // an outside value the fused node does not read
        r = Ref{Ref::Kind::Constant, 0, *c};
      }
      stage.inputs.push_back(std::move(r));
    }
    stages.push_back(std::move(stage));
  }
  for (std::size_t s = 0; s < order.size(); ++s) stages[s].kernel = std::move(nodes[static_cast<std::size_t>(order[s])].kernel);
  // The fused node takes the place of the last replaced node (after everything it reads) and
  // keeps the NodeInfo of the P V product; the other replaced nodes are left unread.
  CompiledNode& last = nodes[static_cast<std::size_t>(order.back())];
  last.info = nodes[pv_index].info;
  last.ir = nodes[pv_index].ir;
  last.kernel = std::make_unique<AttentionFusedOp>(std::move(stages), spec, graph.config());
  graph.set_inputs(static_cast<std::size_t>(order.back()), fused_inputs);
  graph.set_outputs(static_cast<std::size_t>(order.back()), {out});
  for (std::size_t s = 0; s + 1 < order.size(); ++s) {
    // Unread and reading nothing: remove_unread() drops it.
    graph.set_inputs(static_cast<std::size_t>(order[s]), {});
  }
  return true;
}

}  // namespace

void run_attention_fuse(PassGraph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    graph.add_work(1);
    fuse_at(graph, i);
  }
}

}  // namespace onemodel::opt
