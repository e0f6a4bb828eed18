// Making a plan (graph-runtime.md sections 3 and 5): types and shapes node by node, constant
// evaluation, dynamic nodes, then slab offsets from liveness.
#include "optimized/runtime/plan.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "core/graph/constants_pool.hpp"
#include "core/graph/half_adapter.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/runtime/node_errors.hpp"
#include "optimized/runtime/run_state.hpp"
#include "optimized/runtime/slab_allocator.hpp"

namespace onemodel::opt {
namespace {

std::int64_t byte_size(DType type, const Shape& shape) {
  return shape.element_count() * static_cast<std::int64_t>(dtype_size(type));
}

// Errors raised while shaping or evaluating a node name it, as in the reference engine.

}  // namespace

Plan::Plan(const CompiledGraph& graph, const std::vector<Tensor>& inputs) : graph_(graph) {
  shape_nodes(inputs);
  if (graph_.concat_in_place) slice_concat_inputs();
  place_values();
  idle_.reserve(kMaxIdleStates);
}

Plan::~Plan() = default;

void Plan::shape_nodes(const std::vector<Tensor>& inputs) {
  values_.resize(graph_.value_names.size());
  for (std::size_t id = 0; id < values_.size(); ++id) {
    const Tensor& initializer = graph_.initializers[id];
    if (!initializer.defined()) continue;
    values_[id] = PlanValue{ValueKind::Constant, initializer.dtype(), initializer.shape(), initializer, -1, 0, -1};
  }
  signature_.resize(graph_.input_ids.size());
  for (std::size_t i = 0; i < graph_.input_ids.size(); ++i) {
    if (i >= inputs.size() || !inputs[i].defined()) continue;
    signature_[i] = InputSignature{true, inputs[i].dtype(), inputs[i].shape()};
    values_[static_cast<std::size_t>(graph_.input_ids[i])] =
        PlanValue{ValueKind::Input, inputs[i].dtype(), inputs[i].shape(), Tensor(), -1, 0, -1};
  }

  for (const CompiledNode& node : graph_.nodes) {
    const OpKernel& kernel = *node.kernel;
    bool dynamic = kernel.outputs_data_dependent;
    for (int id : node.inputs) {
      if (id >= 0 && values_[static_cast<std::size_t>(id)].kind == ValueKind::Dynamic) dynamic = true;
      if (id >= 0 && values_[static_cast<std::size_t>(id)].kind == ValueKind::Unused) {
        throw SessionError(SessionErrorKind::InvalidModel,
                           "input '" + graph_.value_names[static_cast<std::size_t>(id)] + "' has no value",
                           node.info.name());
      }
    }
    // spec/tensors.md section 8: a node that reads or makes STRING tensors is a dynamic step, so its
    // string values come from buffers of their own and never from the slab.
    for (int id : node.inputs) {
      if (id >= 0 && values_[static_cast<std::size_t>(id)].type == DType::String) dynamic = true;
    }
    std::vector<InferInput> described(node.inputs.size());
    std::vector<InferOutput> stated(node.outputs.size());
    bool needs_values = false;
    std::shared_ptr<const void> prepared;
    bool all_inputs_constant = true;
    if (!dynamic) {
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        const int id = node.inputs[i];
        if (id < 0) continue;
        const PlanValue& value = values_[static_cast<std::size_t>(id)];
        const bool constant = value.kind == ValueKind::Constant;
        all_inputs_constant = all_inputs_constant && constant;
        described[i] = InferInput{true, value.type, value.shape, constant ? &value.constant : nullptr};
        described[i].compact = graph_.is_compact(id);
      }
      for (std::size_t i = 0; i < node.outputs.size(); ++i) stated[i].wanted = node.outputs[i] >= 0;
      with_node(node, [&] {
        InferContext infer(node.info, described, stated, node.input_from_caller);
        infer_node(kernel, infer);
        needs_values = infer.needs_runtime_values();
        for (std::size_t i = 0; i < stated.size() && !needs_values; ++i) {
          if (stated[i].wanted && !stated[i].set) {
            throw SessionError(SessionErrorKind::InvalidModel,
                               node.ir->op_type + ": output " + std::to_string(i) + " was not stated by the kernel");
          }
        }
        if (!needs_values) prepared = kernel.prepare(infer);
      });
      dynamic = needs_values;
      for (std::size_t i = 0; i < stated.size(); ++i) {
        const bool string_out = stated[i].constant ? stated[i].value.dtype() == DType::String : stated[i].type == DType::String;
        if (stated[i].wanted && stated[i].set && string_out) dynamic = true;
      }
    }
    if (dynamic) {
      for (int id : node.outputs) {
        if (id >= 0) values_[static_cast<std::size_t>(id)].kind = ValueKind::Dynamic;
      }
      steps_.push_back(PlanStep{&node, true, false, nullptr, {}});
      continue;
    }

    bool any_constant = false;
    bool all_constant = true;
    for (std::size_t i = 0; i < stated.size(); ++i) {
      if (!stated[i].wanted) continue;
      any_constant = any_constant || stated[i].constant;
      all_constant = all_constant && stated[i].constant;
    }
    if (any_constant && all_constant) {
      for (std::size_t i = 0; i < stated.size(); ++i) {
        if (!stated[i].wanted) continue;
        values_[static_cast<std::size_t>(node.outputs[i])] = PlanValue{
            ValueKind::Constant, stated[i].value.dtype(), stated[i].value.shape(), stated[i].value, -1, 0, -1};
      }
      continue;
    }

    // Section 3 step 2: a node of constants runs now, unless a result would be larger than
    // both its inputs and 64 KiB. The same kernel makes the same bits, only earlier.
    // A random operator draws per run (spec/ops/random.md section 2): never folded.
    if (all_inputs_constant && !kernel.draws_random) {
      std::int64_t largest_input = 0;
      for (const InferInput& in : described) {
        if (in.present) largest_input = std::max(largest_input, byte_size(in.type, in.shape));
      }
      bool fold = true;
      for (const InferOutput& out : stated) {
        if (!out.wanted) continue;
        const std::int64_t bytes = byte_size(out.type, out.shape);
        if (bytes > kFoldLimitBytes && bytes > largest_input) fold = false;
      }
      // A view of a constant (Identity, Reshape, ...) is a view over the same buffer, not a copy:
      // the same elements in the same order, and readers of one weight through views share its
      // buffer and packs (constant_fold.cpp, weight_packs.hpp).
      const int source = node.inputs.empty() ? -1 : node.inputs[0];
      if (fold && kernel.view_of_input && source >= 0 && stated.size() == 1 && stated[0].wanted) {
        const Tensor& from = values_[static_cast<std::size_t>(source)].constant;
        if (from.defined() && from.is_contiguous() && from.dtype() == stated[0].type &&
            from.element_count() == stated[0].shape.element_count()) {
          if (std::optional<Tensor> view = from.try_reshape(stated[0].shape)) {
            values_[static_cast<std::size_t>(node.outputs[0])] =
                PlanValue{ValueKind::Constant, stated[0].type, stated[0].shape, std::move(*view), -1, 0, -1};
            continue;
          }
        }
      }
      if (fold) {
        std::vector<Tensor> in(node.inputs.size());
        for (std::size_t i = 0; i < node.inputs.size(); ++i) {
          if (node.inputs[i] >= 0) in[i] = values_[static_cast<std::size_t>(node.inputs[i])].constant;
        }
        std::vector<Tensor> out(node.outputs.size());
        with_node(node, [&] {
          for (std::size_t i = 0; i < stated.size(); ++i) {
            if (stated[i].wanted) out[i] = Tensor::empty(stated[i].type, stated[i].shape, constants_pool());
          }
          RunContext context(node.info, in, out, nullptr, prepared.get());
          kernel.run(context);
        });
        for (std::size_t i = 0; i < stated.size(); ++i) {
          if (!stated[i].wanted) continue;
          values_[static_cast<std::size_t>(node.outputs[i])] =
              PlanValue{ValueKind::Constant, stated[i].type, stated[i].shape, out[i], -1, 0, -1};
        }
        continue;
      }
    }

    // A view (Reshape, Identity, Squeeze, ...) of a value: no copy, no kernel call.
    const int first_in = node.inputs.empty() ? -1 : node.inputs[0];
    if (kernel.view_of_input && first_in >= 0 && stated.size() == 1 && stated[0].wanted) {
      const PlanValue& source = values_[static_cast<std::size_t>(first_in)];
      if (source.type == stated[0].type && source.shape.element_count() == stated[0].shape.element_count()) {
        values_[static_cast<std::size_t>(node.outputs[0])] =
            PlanValue{ValueKind::View, stated[0].type, stated[0].shape, Tensor(), -1, 0, first_in};
        steps_.push_back(PlanStep{&node, false, true, nullptr, {}});
        continue;
      }
    }

    for (std::size_t i = 0; i < stated.size(); ++i) {
      if (!stated[i].wanted) continue;
      values_[static_cast<std::size_t>(node.outputs[i])] =
          PlanValue{ValueKind::Slab, stated[i].type, stated[i].shape, Tensor(), -1,
                    byte_size(stated[i].type, stated[i].shape), -1};
    }
    steps_.push_back(PlanStep{&node, false, false, std::move(prepared), {}});
  }
}

// spec/optimized-engine.md section 4 rule 5 (docs/design.md "Concat in place"): a Concat whose
// inputs can be written straight into their slices of its output makes no copy. Concats are
// visited last to first, so a Concat output that is itself an input of a later Concat (nested
// Inception-style blocks) is already a slice when its own inputs are sliced into it, and a
// DenseNet block's Concats [f0], [f0, f1], ..., [f0, ..., fn] all become prefixes of the last one.
// Conditions, for every input: a slab value (a static step's own output: not a graph input, a
// constant, a view or a dynamic value), not a graph output, read once by this Concat, of the
// output's type and not empty; the output a slab value whose extents before the axis multiply to 1,
// so each input is one contiguous block at the sum of the sizes before it; the Concat an ai.onnx
// node not wrapped by the half adapter. Then either no input is a slice yet (each becomes a slice
// of the output), or every input already is, of one value, back to back in order (the output
// becomes the slice of that value they cover). The bytes are the ones the copy would have made.
void Plan::slice_concat_inputs() {
  std::vector<std::uint8_t> is_output(values_.size(), 0);
  for (int id : graph_.output_ids) {
    if (id >= 0) is_output[static_cast<std::size_t>(id)] = 1;
  }
  for (std::size_t s = steps_.size(); s-- > 0;) {
    PlanStep& step = steps_[s];
    const CompiledNode& node = *step.node;
    if (step.dynamic || step.view || node.outputs.size() != 1 || node.outputs[0] < 0 || node.inputs.empty()) continue;
    if ((!node.ir->domain.empty() && node.ir->domain != "ai.onnx") || node.ir->op_type != "Concat") continue;
    if (&unwrap_half_adapter(*node.kernel) != node.kernel.get()) continue;
    const std::size_t out_id = static_cast<std::size_t>(node.outputs[0]);
    PlanValue& out = values_[out_id];
    if (out.kind != ValueKind::Slab || out.bytes <= 0 || out.shape.rank() == 0) continue;
    const std::int64_t rank = out.shape.rank();
    std::int64_t axis = node.info.get_int("axis", node.info.opset() < 4 ? 1 : 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) continue;
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= out.shape[static_cast<int>(d)];
    if (outer != 1) continue;
    bool ok = true;
    std::int64_t total = 0;
    int sliced = 0;
    for (std::size_t i = 0; i < node.inputs.size() && ok; ++i) {
      const int id = node.inputs[i];
      if (id < 0 || static_cast<std::size_t>(id) == out_id) { ok = false; break; }
      const PlanValue& in = values_[static_cast<std::size_t>(id)];
      ok = in.kind == ValueKind::Slab && in.type == out.type && in.bytes > 0 && is_output[static_cast<std::size_t>(id)] == 0;
      for (std::size_t j = 0; j < i && ok; ++j) ok = node.inputs[j] != id;
      total += in.bytes;
      if (in.slice_of >= 0) ++sliced;
    }
    if (!ok || total != out.bytes) continue;
    if (sliced == 0) {
      std::int64_t at = 0;
      for (int id : node.inputs) {
        PlanValue& in = values_[static_cast<std::size_t>(id)];
        in.slice_of = static_cast<int>(out_id);
        in.slice_offset = at;
        at += in.bytes;
      }
      step.concat_in_place = true;
      continue;
    }
    if (sliced != static_cast<int>(node.inputs.size()) || out.slice_of >= 0) continue;
    // Every input a slice of one value, back to back in order: the output is that stretch.
    const PlanValue& first = values_[static_cast<std::size_t>(node.inputs[0])];
    std::int64_t next = first.slice_offset;
    for (int id : node.inputs) {
      const PlanValue& in = values_[static_cast<std::size_t>(id)];
      ok = ok && in.slice_of == first.slice_of && in.slice_offset == next;
      next += in.bytes;
    }
    if (!ok) continue;
    out.slice_of = first.slice_of;
    out.slice_offset = first.slice_offset;
    step.concat_in_place = true;
  }
}

void Plan::place_values() {
  const std::size_t count = values_.size();
  constexpr int kForever = std::numeric_limits<int>::max();
  // The slab value whose block a value lives in (itself, a view's root, or for a slice the
  // value at the top of its slice chain), else -1.
  std::vector<int> root(count, -1);
  const auto top_of = [&](int id) {
    while (values_[static_cast<std::size_t>(id)].slice_of >= 0) id = values_[static_cast<std::size_t>(id)].slice_of;
    return id;
  };
  for (std::size_t s = 0; s < steps_.size(); ++s) {
    for (int id : steps_[s].node->outputs) {
      if (id < 0) continue;
      const PlanValue& value = values_[static_cast<std::size_t>(id)];
      if (value.kind == ValueKind::Slab) root[static_cast<std::size_t>(id)] = top_of(id);
      if (value.kind == ValueKind::View) {
        root[static_cast<std::size_t>(id)] = root[static_cast<std::size_t>(value.view_source)];
      }
    }
  }
  // Section 5 rule 1: a block lives to the last step that reads any value in it; outputs to the
  // end; a value nobody reads dies at the step that makes it.
  std::vector<int> block_last(count, -1);
  std::vector<int> sharers(count, 0);
  for (std::size_t id = 0; id < count; ++id) {
    if (root[id] >= 0) ++sharers[static_cast<std::size_t>(root[id])];
  }
  for (std::size_t s = 0; s < steps_.size(); ++s) {
    for (int id : steps_[s].node->inputs) {
      if (id >= 0 && root[static_cast<std::size_t>(id)] >= 0) {
        int& last = block_last[static_cast<std::size_t>(root[static_cast<std::size_t>(id)])];
        last = std::max(last, static_cast<int>(s));
      }
    }
    for (int id : steps_[s].node->outputs) {
      if (id >= 0 && root[static_cast<std::size_t>(id)] >= 0) {
        int& last = block_last[static_cast<std::size_t>(root[static_cast<std::size_t>(id)])];
        last = std::max(last, static_cast<int>(s));
      }
    }
  }
  for (int id : graph_.output_ids) {
    if (root[static_cast<std::size_t>(id)] >= 0) block_last[static_cast<std::size_t>(root[static_cast<std::size_t>(id)])] = kForever;
  }

  SlabAllocator slab;
  std::vector<bool> holds_block(count, false);      // the value owns its block now
  std::vector<std::int64_t> block_size(count, 0);  // bytes its block was allocated for
  for (std::size_t s = 0; s < steps_.size(); ++s) {
    PlanStep& step = steps_[s];
    const CompiledNode& node = *step.node;
    if (!step.view && !step.dynamic) {
      for (std::size_t o = 0; o < node.outputs.size(); ++o) {
        const int id = node.outputs[o];
        if (id < 0 || values_[static_cast<std::size_t>(id)].kind != ValueKind::Slab) continue;
        PlanValue& out = values_[static_cast<std::size_t>(id)];
        if (root[static_cast<std::size_t>(id)] != id || out.offset >= 0) {
          // Rule 5: a slice lives in its top value's block, made by the first step that writes
          // any value in it (outputs are placed before dying inputs are freed, as in rule 2);
          // never in place over an input.
          const std::size_t top = static_cast<std::size_t>(root[static_cast<std::size_t>(id)]);
          if (!holds_block[top] && values_[top].offset < 0) {
            values_[top].offset = slab.allocate(values_[top].bytes);
            holds_block[top] = true;
            block_size[top] = values_[top].bytes;
          }
          std::int64_t at = 0;
          for (int v = id; v != static_cast<int>(top); v = values_[static_cast<std::size_t>(v)].slice_of) {
            at += values_[static_cast<std::size_t>(v)].slice_offset;
          }
          out.offset = values_[top].offset + at;
          continue;
        }
        // Rule 3: in place when the kernel allows it and the input's block dies here unshared;
        // the kernel's second choice when its first input's block cannot be taken.
        bool in_place = false;
        for (const int k : {node.kernel->in_place_input, node.kernel->in_place_second}) {
          if (o != 0 || k < 0 || static_cast<std::size_t>(k) >= node.inputs.size() || node.inputs[k] < 0) continue;
          const std::size_t src = static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(k)]);
          const PlanValue& in = values_[src];
          if (in.kind == ValueKind::Slab && holds_block[src] && sharers[src] == 1 &&
              block_last[src] == static_cast<int>(s) && in.type == out.type && in.bytes >= out.bytes) {
            out.offset = in.offset;
            holds_block[src] = false;
            holds_block[static_cast<std::size_t>(id)] = true;
            block_size[static_cast<std::size_t>(id)] = block_size[src];
            in_place = true;
            break;
          }
        }
        if (in_place) continue;
        // Rule 2: outputs are placed before this step's dying inputs are freed.
        out.offset = slab.allocate(out.bytes);
        holds_block[static_cast<std::size_t>(id)] = true;
        block_size[static_cast<std::size_t>(id)] = out.bytes;
      }
    }
    // Free every block whose last reader is this step.
    auto release_if_dead = [&](int id) {
      if (id < 0) return;
      const int r = root[static_cast<std::size_t>(id)];
      if (r < 0 || !holds_block[static_cast<std::size_t>(r)] || block_last[static_cast<std::size_t>(r)] != static_cast<int>(s)) return;
      holds_block[static_cast<std::size_t>(r)] = false;
      const PlanValue& value = values_[static_cast<std::size_t>(r)];
      const std::int64_t bytes = block_size[static_cast<std::size_t>(r)];
      slab.release(value.offset, bytes);
      step.freed.emplace_back(value.offset, SlabAllocator::rounded(bytes));
    };
    for (int id : node.inputs) release_if_dead(id);
    for (int id : node.outputs) release_if_dead(id);
  }
  slab_bytes_ = slab.size();
  if (slab_bytes_ > kMaxSlabBytes - 1) {
    throw SessionError(SessionErrorKind::Unsupported,
                       "the plan's intermediate values need " + std::to_string(slab_bytes_) +
                           " bytes, more than the 2 GiB a plan may use");
  }
}

std::unique_ptr<RunState> Plan::take_state() const {
  {
    std::lock_guard<std::mutex> lock(idle_mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<RunState> state = std::move(idle_.back());
      idle_.pop_back();
      return state;
    }
  }
  return std::make_unique<RunState>(*this);
}

void Plan::give_back(std::unique_ptr<RunState> state) const {
  std::lock_guard<std::mutex> lock(idle_mutex_);
  if (idle_.size() < kMaxIdleStates) idle_.push_back(std::move(state));
}

}  // namespace onemodel::opt
