// `nchwc-layout` (fast mode, AVX-512 path; docs/design.md "Channel-blocked activations"): gives
// the values flowing between 1x1 and depthwise convolutions the blocked layout of
// optimized/kernels/nchwc/nchwc.hpp and makes the Convs that read or write them NchwcConvOp
// nodes. Last in the table, so every Conv has already taken its activation and residual Add.
// Shape-free: every decision reads W's constant shape and the attributes only.
//
// Candidates: float32 Conv overrides with constant float32 W of rank 4 and a constant bias or
// none, no fused BatchNormalization (fast mode folds them), that are
//  - 1x1: one group, strides 1, no padding (with or without a residual Add), or
//  - depthwise: groups == W's output channels, one input channel per group, dilations 1, no
//    residual Add.
// Squeeze-and-excitation blocks keep the layout too: a GlobalAveragePool of a blocked value, and
// the Mul of a value by a factor proved to be [N, C, 1, 1] (walking back from the factor through
// 1x1 Convs and shape-keeping element-wise nodes reaches a GlobalAveragePool of the value itself).
// A value is blocked when a candidate writes it, it is not a graph output, and every reader is a
// candidate reading it as X (a Mul's value), or as the residual of a 1x1 candidate, taking
// exactly its channel count. A candidate becomes a blocked
// node when it reads a blocked X, or (1x1 only) writes a blocked value; then its residual must
// have its output's layout and provably its logical shape (below). The two rules are applied
// until nothing changes: unblocking a value only ever removes blocked nodes, so it ends.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "optimized/kernels/nchwc/nchwc.hpp"
#include "optimized/ops/conv_activation.hpp"
#include "optimized/passes/graph_pass.hpp"
#include "optimized/passes/nchwc_conv_op.hpp"
#include "optimized/passes/nchwc_se_ops.hpp"
#include "optimized/passes/self_gate_op.hpp"

namespace onemodel::opt {
namespace {

using Kind = NchwcConvSpec::Kind;

// What a candidate node is: a Conv (kind), a GlobalAveragePool of a blocked value, or the Mul of a
// blocked value by its squeeze-and-excitation factor.
enum class Role : std::uint8_t { Conv, Pool, Scale };

struct BlockedCandidate {
  bool is = false;
  Role role = Role::Conv;
  int x_slot = 0;  // the input that may be blocked (a Scale's value)
  Kind kind = Kind::Pointwise;
  std::size_t in_channels = 0, out_channels = 0;
  bool keeps_plane = false;  // the output's (H, W) is the input's
  bool residual = false;
};

bool all_equal_to(const std::vector<std::int64_t>& values, std::int64_t v) {
  for (const std::int64_t x : values) {
    if (x != v) return false;
  }
  return true;
}

BlockedCandidate classify_for_blocks(const PassGraph& graph, const CompiledNode& node) {
  BlockedCandidate c;
  const IrNode& ir = *node.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "Conv") return c;
  if (node.outputs.size() != 1 || node.outputs[0] < 0 || node.inputs.size() < 2 || node.inputs[0] < 0) return c;
  const ConvOverrideParts parts = conv_override_parts(*node.kernel);
  if (!parts.is_override || parts.has_norm) return c;
  if (parts.activation != nullptr && parts.activation->round_first != DType::F32) return c;
  if (!graph.known_f32(node.inputs[0])) return c;
  const Tensor* w = graph.constant(node.inputs[1]);
  if (w == nullptr || w->dtype() != DType::F32 || w->shape().rank() != 4 || graph.is_compact(node.inputs[1])) return c;
  const std::size_t cout = static_cast<std::size_t>(w->shape()[0]);
  const std::size_t per_group = static_cast<std::size_t>(w->shape()[1]);
  const std::size_t kh = static_cast<std::size_t>(w->shape()[2]), kw = static_cast<std::size_t>(w->shape()[3]);
  if (cout == 0 || per_group == 0 || kh == 0 || kw == 0) return c;
  if (node.inputs.size() > 2 && node.inputs[2] >= 0) {
    const Tensor* b = graph.constant(node.inputs[2]);
    if (b == nullptr || b->dtype() != DType::F32 || b->shape().rank() != 1 ||
        static_cast<std::size_t>(b->shape()[0]) != cout) {
      return c;
    }
  }
  const NodeInfo& info = node.info;
  const std::int64_t group = info.get_int("group", 1);
  const std::vector<std::int64_t> strides = info.get_ints("strides");
  const std::vector<std::int64_t> pads = info.get_ints("pads");
  const std::vector<std::int64_t> dilations = info.get_ints("dilations");
  const std::string auto_pad = info.get_string("auto_pad", "NOTSET");
  if (!all_equal_to(dilations, 1)) return c;
  c.residual = parts.residual != nullptr;
  if (node.inputs.size() != (c.residual ? 4u : 3u) && !(node.inputs.size() == 2 && !c.residual)) return c;
  if (kh == 1 && kw == 1 && group == 1) {
    if (!all_equal_to(strides, 1) || !all_equal_to(pads, 0)) return c;
    c.kind = Kind::Pointwise;
    c.in_channels = per_group;
    c.keeps_plane = true;
  } else if (group > 1 && static_cast<std::size_t>(group) == cout && per_group == 1 && kh * kw <= 64 && !c.residual) {
    c.kind = Kind::Depthwise;
    c.in_channels = cout;
    const bool unstrided = all_equal_to(strides, 1);
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    const bool centred = auto_pad == "NOTSET" && pads.size() == 4 && pads[0] + pads[2] == static_cast<std::int64_t>(kh) - 1 &&
                         pads[1] + pads[3] == static_cast<std::int64_t>(kw) - 1;
    c.keeps_plane = unstrided && (same || centred || (kh == 1 && kw == 1 && (pads.empty() || all_equal_to(pads, 0))));
  } else {
    return c;
  }
  c.out_channels = cout;
  c.is = true;
  return c;
}

BlockedCandidate classify_pool(const PassGraph& graph, const CompiledNode& node) {
  BlockedCandidate c;
  const IrNode& ir = *node.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "GlobalAveragePool") return c;
  if (node.inputs.size() != 1 || node.inputs[0] < 0 || node.outputs.size() != 1 || node.outputs[0] < 0) return c;
  if (!graph.known_f32(node.inputs[0])) return c;
  c.role = Role::Pool;
  c.is = true;  // its channel count is its input's (set when that input is known)
  return c;
}

// The output channels of a 1x1 Conv of one group, stride 1 and no padding with a constant float32
// W (whatever its input is known to be), or 0.
std::size_t pointwise_channels(const PassGraph& graph, const CompiledNode& node) {
  const IrNode& ir = *node.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "Conv" || node.inputs.size() < 2) return 0;
  const Tensor* w = graph.constant(node.inputs[1]);
  if (w == nullptr || w->shape().rank() != 4 || w->shape()[2] != 1 || w->shape()[3] != 1) return 0;
  if (node.info.get_int("group", 1) != 1 || !all_equal_to(node.info.get_ints("strides"), 1) ||
      !all_equal_to(node.info.get_ints("pads"), 0) || node.inputs.size() > 3) {
    return 0;
  }
  return static_cast<std::size_t>(w->shape()[0]);
}

// Element-wise operators of one data input (input 0) that keep its shape, as they stand between a
// squeeze-and-excitation block's 1x1 layers and its Mul.
bool keeps_shape(const CompiledNode& node) {
  const IrNode& ir = *node.ir;
  if (!ir.domain.empty() && ir.domain != "ai.onnx") return false;
  if (dynamic_cast<const SelfGateOp*>(node.kernel.get()) != nullptr) return true;
  static const char* const kUnary[] = {"Relu", "Sigmoid", "HardSigmoid", "HardSwish", "Clip", "Tanh", "LeakyRelu"};
  for (const char* op : kUnary) {
    if (ir.op_type == op) return true;
  }
  return false;
}

// A Mul(value, factor) (either order) whose factor is provably [N, C, 1, 1] for the value's
// [N, C, H, W]: walking back from the factor through 1x1 candidates and shape-keeping element-wise
// nodes reaches a GlobalAveragePool of the value itself; the 1x1 layer nearest the Mul makes C
// channels (`channels`, 0 when there is none: the factor is the pool's own C).
BlockedCandidate classify_scale(const PassGraph& graph, const std::vector<CompiledNode>& nodes,
                                const std::vector<BlockedCandidate>& cand, std::size_t index) {
  BlockedCandidate c;
  const CompiledNode& node = nodes[index];
  const IrNode& ir = *node.ir;
  if ((!ir.domain.empty() && ir.domain != "ai.onnx") || ir.op_type != "Mul") return c;
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.outputs[0] < 0) return c;
  if (dynamic_cast<const OptimizedKernel*>(node.kernel.get()) == nullptr) return c;
  for (int slot = 0; slot < 2; ++slot) {
    const int value = node.inputs[static_cast<std::size_t>(slot)];
    const int factor = node.inputs[static_cast<std::size_t>(1 - slot)];
    // The factor's type follows from the walk below: 1x1 Convs and these element-wise operators
    // keep their input's type, and the pool's is the value's.
    if (value < 0 || factor < 0 || value == factor || !graph.known_f32(value)) continue;
    std::size_t channels = 0;
    int at = graph.producer(factor);
    for (int steps = 0; steps < 16 && at >= 0; ++steps) {
      const CompiledNode& p = nodes[static_cast<std::size_t>(at)];
      const BlockedCandidate& pc = cand[static_cast<std::size_t>(at)];
      if (pc.is && pc.role == Role::Pool) {
        if (p.inputs[0] != value) break;
        c.is = true;
        c.role = Role::Scale;
        c.x_slot = slot;
        c.keeps_plane = true;  // the product has the value's shape
        c.in_channels = c.out_channels = channels;
        return c;
      }
      if (const std::size_t made = pointwise_channels(graph, p); made != 0) {
        if (channels == 0) channels = made;
      } else if (!keeps_shape(p)) {
        break;
      }
      at = graph.producer(p.inputs[0]);
    }
  }
  return c;
}

}  // namespace

void run_nchwc_layout(PassGraph& graph) {
  if (graph.config().isa != Isa::Avx512 || graph.half_model()) return;
  std::vector<CompiledNode>& nodes = graph.nodes();
  std::vector<BlockedCandidate> cand(nodes.size());
  std::size_t values = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    graph.add_work(1);
    cand[i] = classify_for_blocks(graph, nodes[i]);
    if (!cand[i].is) cand[i] = classify_pool(graph, nodes[i]);
    for (const int v : nodes[i].inputs) values = std::max(values, static_cast<std::size_t>(v + 1));
    for (const int v : nodes[i].outputs) values = std::max(values, static_cast<std::size_t>(v + 1));
  }
  // Pools and Scales take the channel count of the Conv that makes their value.
  const auto maker_channels = [&](int value) -> std::size_t {
    const int p = graph.producer(value);
    if (p < 0) return 0;
    const BlockedCandidate& pc = cand[static_cast<std::size_t>(p)];
    return pc.is && pc.role == Role::Conv ? pc.out_channels : 0;
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (cand[i].is) continue;
    graph.add_work(16);
    cand[i] = classify_scale(graph, nodes, cand, i);
    if (!cand[i].is) continue;
    const std::size_t made = maker_channels(nodes[i].inputs[static_cast<std::size_t>(cand[i].x_slot)]);
    if (made == 0 || (cand[i].out_channels != 0 && cand[i].out_channels != made)) {
      cand[i].is = false;
      continue;
    }
    cand[i].in_channels = cand[i].out_channels = made;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (cand[i].is && cand[i].role == Role::Pool) cand[i].in_channels = maker_channels(nodes[i].inputs[0]);
  }
  // Per value: its readers (node, input slot) and whether it is blocked.
  std::vector<std::vector<std::pair<int, int>>> readers(values);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (std::size_t k = 0; k < nodes[i].inputs.size(); ++k) {
      const int v = nodes[i].inputs[k];
      if (v >= 0) readers[static_cast<std::size_t>(v)].push_back({static_cast<int>(i), static_cast<int>(k)});
    }
  }
  std::vector<char> blocked(values, 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!cand[i].is || cand[i].role == Role::Pool) continue;  // a pool's [N, C, 1, 1] stays plain
    const int y = nodes[i].outputs[0];
    if (graph.is_output(y) || readers[static_cast<std::size_t>(y)].empty()) continue;
    // Channels that nearly fill their blocks: at most one lane in sixteen padding (24 channels in
    // 32 lanes had cost a third more arithmetic and memory than the NCHW kernels spend).
    const std::size_t c = cand[i].out_channels;
    if ((nchwc::blocks_of(c) * nchwc::kBlock - c) * nchwc::kBlock > c) continue;
    bool all = true;
    for (const auto& [r, slot] : readers[static_cast<std::size_t>(y)]) {
      const BlockedCandidate& rc = cand[static_cast<std::size_t>(r)];
      // The reader takes as many channels as this node makes: a blocked value of another count
      // (an invalid model) would pass the reader's checks when its block count agrees, so such
      // a value stays plain and the reader's own infer() refuses it.
      bool reads = false;
      if (rc.is && rc.role == Role::Conv && slot == 3) {
        reads = rc.residual && rc.out_channels == c;
      } else if (rc.is) {
        reads = slot == rc.x_slot && rc.in_channels == c;
      }
      all = all && reads;
    }
    blocked[static_cast<std::size_t>(y)] = all ? 1 : 0;
  }
  // The residual's logical shape is the output's: walking back from X through candidates that
  // keep the plane (1x1 and unstrided depthwise Convs, squeeze-and-excitation products) reaches R, and the candidate reading R takes as many channels as this node
  // makes (Convs keep the batch; R then has the four axes a candidate reads).
  const auto residual_proven = [&](std::size_t i) {
    const int r = nodes[i].inputs[3];
    std::size_t at = i;
    for (int steps = 0; steps < 16; ++steps) {
      const BlockedCandidate& c = cand[at];
      if (!c.is || !c.keeps_plane) return false;
      const int x = nodes[at].inputs[static_cast<std::size_t>(c.x_slot)];
      if (x == r) return c.in_channels == cand[i].out_channels;
      const int p = graph.producer(x);
      if (p < 0) return false;
      at = static_cast<std::size_t>(p);
    }
    return false;
  };
  std::vector<char> converted(nodes.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    graph.add_work(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      converted[i] = 0;
      if (!cand[i].is) continue;
      const std::size_t x = static_cast<std::size_t>(nodes[i].inputs[static_cast<std::size_t>(cand[i].x_slot)]);
      const std::size_t y = static_cast<std::size_t>(nodes[i].outputs[0]);
      const bool x_blocked = blocked[x] != 0;
      if (cand[i].role == Role::Pool) {
        converted[i] = x_blocked ? 1 : 0;
        continue;
      }
      if (cand[i].role == Role::Scale) {
        // The value and the product share the layout (the kernel reads and writes it blocked).
        if (blocked[x] != blocked[y]) {
          blocked[blocked[x] != 0 ? x : y] = 0;
          changed = true;
        }
        converted[i] = blocked[x] != 0 && blocked[y] != 0 ? 1 : 0;
        continue;
      }
      bool take = cand[i].kind == Kind::Pointwise ? x_blocked || blocked[y] != 0 : x_blocked;
      if (take && cand[i].residual) {
        const std::size_t r = static_cast<std::size_t>(nodes[i].inputs[3]);
        if (!residual_proven(i)) {
          take = false;
        } else if (blocked[r] != blocked[y]) {
          // One layout for both: the blocked one of the two becomes plain.
          blocked[blocked[r] != 0 ? r : y] = 0;
          changed = true;
        }
      }
      // A 1x1 node leaving the blocked layout (blocked X, plain Y) that widens the channels
      // changes layout where the tensor is larger: its input is then left plain instead, so the
      // narrower tensor is the one transposed (by its producer) and this node runs the NCHW
      // product. MnasNet's last 1x1 layer (320 -> 1280 at 7 x 7) and EfficientNet-B0's took
      // 1.15-1.2x the NCHW product's time with blocked input and plain output.
      if (take && cand[i].kind == Kind::Pointwise && blocked[x] != 0 && blocked[y] == 0 &&
          cand[i].out_channels > cand[i].in_channels) {
        blocked[x] = 0;
        changed = true;
        take = false;
      }
      converted[i] = take ? 1 : 0;
    }
    for (std::size_t v = 0; v < values; ++v) {
      if (blocked[v] == 0) continue;
      bool keep = converted[static_cast<std::size_t>(graph.producer(static_cast<int>(v)))] != 0;
      for (const auto& [r, slot] : readers[v]) keep = keep && converted[static_cast<std::size_t>(r)] != 0;
      if (!keep) {
        blocked[v] = 0;
        changed = true;
      }
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (converted[i] == 0) continue;
    CompiledNode& node = nodes[i];
    if (cand[i].role == Role::Pool) {
      node.kernel = std::make_unique<NchwcPoolOp>(cand[i].in_channels, graph.config());
      continue;
    }
    if (cand[i].role == Role::Scale) {
      node.kernel = std::make_unique<NchwcScaleOp>(cand[i].in_channels, cand[i].x_slot, graph.config());
      continue;
    }
    const ConvOverrideParts parts = conv_override_parts(*node.kernel);
    NchwcConvSpec spec;
    spec.kind = cand[i].kind;
    spec.in_blocked = blocked[static_cast<std::size_t>(node.inputs[0])] != 0;
    spec.out_blocked = blocked[static_cast<std::size_t>(node.outputs[0])] != 0;
    spec.in_channels = cand[i].in_channels;
    spec.out_channels = cand[i].out_channels;
    if (parts.activation != nullptr) {
      spec.activate = true;
      spec.activation = parts.activation->args;
    }
    if (parts.residual != nullptr) {
      spec.residual = true;
      spec.residual_first = parts.residual->residual_first;
    }
    node.kernel = std::make_unique<NchwcConvOp>(spec, std::move(node.kernel), graph.config());
  }
}

}  // namespace onemodel::opt
