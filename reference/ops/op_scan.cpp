// Scan (opset 8, and 9+): runs its body once per position of the scan inputs, carrying N state
// values and stacking K scan outputs (spec/ops/control-flow.md section 5). Body inputs: the N
// states, then one slice of each of the M scan inputs; body outputs: the N states, then the K
// scan-output slices.
//  - Opset 9+: inputs are the N initial states and the M scan inputs; each scan input is sliced
//    along its axis (scan_input_axes, negative counted from the end), in reverse when its
//    direction is 1; each scan output is stacked along its axis (scan_output_axes, in
//    [-(r+1), r]), in reverse order when its direction is 1.
//  - Opset 8: a batch axis 0 before everything: input 0 is the optional sequence_lens [B], states
//    are [B, ...], scan inputs [B, L, ...] scanned along axis 1 (reversed within each sequence's
//    own length when its direction is 1); scan outputs are [B, L, ...], zero past a sequence's
//    length.
// The positions run in one order (the only order: results do not depend on threads or paths);
// more than SessionOptions::max_loop_iterations positions is ResourceExhausted naming the node.
#include <cstring>

#include "core/graph/tensor_bytes.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/body_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace body_ops;

// What one scan over one sequence gives: the final states and each scan output stacked along a
// new axis 0 (`stacked_length` rows, those past the sequence zero).
struct ScanResult {
  std::vector<Tensor> states;
  std::vector<Tensor> stacked;  // undefined when the sequence is empty
};

class Scan final : public OpKernel {
 public:
  explicit Scan(const NodeInfo& node) : body_(compile_body(node, "body")), batched_(node.opset() < 9) {
    outputs_data_dependent = true;
    // Values of any element type pass through the body; STRING ones are copied by assignment
    // (copy_view_into, spec/tensors.md section 8).
    string_elements = true;
    const std::int64_t m = node.required_int("num_scan_inputs");
    const std::size_t declared = declared_input_count(node.ir());
    const std::size_t leading = batched_ ? 1 : 0;  // opset 8: sequence_lens
    if (m < 1 || static_cast<std::size_t>(m) + leading > declared) {
      node.fail_invalid("num_scan_inputs " + std::to_string(m) + " does not fit the node's " + std::to_string(declared) +
                        " inputs");
    }
    scan_inputs_ = static_cast<std::size_t>(m);
    states_ = declared - leading - scan_inputs_;
    const IrGraph& graph = body_.body->graph();
    if (graph.inputs.size() != states_ + scan_inputs_) {
      node.fail_invalid("the body takes " + std::to_string(graph.inputs.size()) + " inputs; " +
                        std::to_string(states_ + scan_inputs_) + " expected");
    }
    if (graph.outputs.size() < states_) node.fail_invalid("the body gives fewer outputs than the node has states");
    scan_outputs_ = graph.outputs.size() - states_;
    if (node.output_count() > states_ + scan_outputs_) node.fail_invalid("the node has more outputs than the body gives");
    const auto flags = [&](const char* name, std::size_t count) {
      std::vector<std::int64_t> values = node.get_ints(name, std::vector<std::int64_t>(count, 0));
      if (values.size() != count) {
        node.fail_invalid(std::string("attribute '") + name + "' has " + std::to_string(values.size()) +
                          " entries; " + std::to_string(count) + " expected");
      }
      return values;
    };
    in_directions_ = flags(batched_ ? "directions" : "scan_input_directions", scan_inputs_);
    if (!batched_) {
      out_directions_ = flags("scan_output_directions", scan_outputs_);
      in_axes_ = flags("scan_input_axes", scan_inputs_);
      out_axes_ = flags("scan_output_axes", scan_outputs_);
    } else {
      out_directions_.assign(scan_outputs_, 0);
      in_axes_.assign(scan_inputs_, 0);
      out_axes_.assign(scan_outputs_, 0);
    }
    for (std::int64_t d : in_directions_) {
      if (d != 0 && d != 1) node.fail_invalid("a scan direction must be 0 or 1, not " + std::to_string(d));
    }
    for (std::int64_t d : out_directions_) {
      if (d != 0 && d != 1) node.fail_invalid("a scan direction must be 0 or 1, not " + std::to_string(d));
    }
    limit_ = node.subgraphs().max_loop_iterations();
  }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    if (batched_) {
      run_batched(context);
    } else {
      run_unbatched(context);
    }
  }

 private:
  // One scan: `inputs[j]` has its scanned axis at `axes[j]`; `length` positions are run, the
  // stacked outputs get `stacked_length` rows.
  ScanResult scan(const RunContext& context, std::vector<Tensor> states, const std::vector<Tensor>& inputs,
                  const std::vector<int>& axes, std::int64_t length, std::int64_t stacked_length) const {
    const NodeInfo& node = context.node();
    if (length > limit_) check_iteration(node, length - 1, limit_);
    ScanResult result{std::move(states), std::vector<Tensor>(scan_outputs_)};
    std::vector<Tensor> spare(states_);
    std::vector<Tensor> outputs(states_ + scan_outputs_);
    // Made once, refilled every position (the captures stay).
    std::vector<Tensor> body_in = body_inputs(context, body_, std::vector<Tensor>(states_ + scan_inputs_));
    for (std::int64_t t = 0; t < length; ++t) {
      check_stop(context);
      for (std::size_t v = 0; v < states_; ++v) body_in[v] = result.states[v];
      for (std::size_t j = 0; j < scan_inputs_; ++j) {
        const std::int64_t position = in_directions_[j] != 0 ? length - 1 - t : t;
        body_in[states_ + j] = inputs[j].select(axes[j], position).contiguous();
      }
      for (std::size_t v = 0; v < states_; ++v) outputs[v] = spare[v];
      for (std::size_t k = 0; k < scan_outputs_; ++k) {
        const std::int64_t row = out_directions_[k] != 0 ? length - 1 - t : t;
        outputs[states_ + k] = result.stacked[k].defined() ? result.stacked[k].select(0, row) : Tensor();
      }
      body_.body->run(context, body_in, outputs);
      for (std::size_t v = 0; v < states_; ++v) {
        spare[v] = t == 0 ? Tensor() : result.states[v];  // never the caller's initial state
        result.states[v] = outputs[v];
      }
      for (std::size_t k = 0; k < scan_outputs_; ++k) {
        const Tensor& slice = outputs[states_ + k];
        if (is_packed_value(slice)) node.fail_unsupported("scan output " + std::to_string(k) + " is a sequence or optional");
        if (!result.stacked[k].defined()) {
          // The first slice shapes the stack; rows past the sequence stay zero (opset 8).
          std::vector<std::int64_t> extents{stacked_length};
          for (std::int32_t e : slice.shape().extents()) extents.push_back(e);
          if (RunControl* control = context.run_control()) {
            control->charge(slice.dtype(), shape_ops::make_shape(node, extents), "a stacked scan output");
          }
          result.stacked[k] = Tensor::zeros(slice.dtype(), shape_ops::make_shape(node, extents));
          const std::int64_t row = out_directions_[k] != 0 ? length - 1 - t : t;
          shape_ops::copy_view_into(slice, result.stacked[k].select(0, row));
        } else if (slice.buffer() != result.stacked[k].buffer()) {
          // The body wrote in place unless the slice's type or shape changed (BodySink).
          node.fail_invalid("scan output " + std::to_string(k) + " changes shape: " + slice.shape().to_string() +
                            " at position " + std::to_string(t));
        }
      }
    }
    return result;
  }

  // The declared type of body output `index` when it is a tensor of a stored type, else float.
  DType declared_type(std::size_t index) const {
    const IrType& type = body_.body->graph().outputs[index].type;
    return type.kind == IrType::Kind::Tensor && dtype_is_stored(type.elem_type) ? static_cast<DType>(type.elem_type)
                                                                                 : DType::F32;
  }

  void run_unbatched(RunContext& context) const {
    const NodeInfo& node = context.node();
    std::vector<Tensor> states(states_);
    for (std::size_t v = 0; v < states_; ++v) states[v] = context.input(v).contiguous();
    std::vector<Tensor> inputs(scan_inputs_);
    std::vector<int> axes(scan_inputs_);
    std::int64_t length = -1;
    for (std::size_t j = 0; j < scan_inputs_; ++j) {
      inputs[j] = context.input(states_ + j);
      axes[j] = shape_ops::normalize_axis(node, in_axes_[j], inputs[j].rank());
      const std::int64_t extent = inputs[j].shape()[axes[j]];
      if (length >= 0 && extent != length) {
        shape_ops::fail_index(node, "scan input " + std::to_string(j) + " has " + std::to_string(extent) +
                                        " positions, scan input 0 has " + std::to_string(length));
      }
      length = extent;
    }
    ScanResult result = scan(context, states, inputs, axes, length, length);
    for (std::size_t v = 0; v < states_ && v < context.output_count(); ++v) {
      if (!context.output_wanted(v)) continue;
      if (length == 0) {
        set_output_value(context, v, input_value_of(context, v));
      } else {
        context.adopt_output(v, std::move(result.states[v]));
      }
    }
    for (std::size_t k = 0; k < scan_outputs_ && states_ + k < context.output_count(); ++k) {
      const std::size_t out = states_ + k;
      if (!context.output_wanted(out)) continue;
      if (!result.stacked[k].defined()) {
        const auto [type, shape] = empty_scan_output(body_.body->graph().outputs[states_ + k].type, out_axes_[k]);
        context.allocate_output(out, type, shape);
        continue;
      }
      const Tensor& stacked = result.stacked[k];
      const int rank = stacked.rank();
      const int axis = out_axes_[k] < 0 ? static_cast<int>(out_axes_[k] + rank) : static_cast<int>(out_axes_[k]);
      if (axis < 0 || axis >= rank) {
        node.fail_invalid("scan_output_axes entry " + std::to_string(out_axes_[k]) + " outside [" +
                          std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
      }
      if (axis == 0) {
        context.adopt_output(out, stacked);
        continue;
      }
      // The stacked axis moved to its place: a permuted view copied once.
      std::vector<int> order;
      for (int d = 1; d <= axis; ++d) order.push_back(d);
      order.insert(order.begin() + axis, 0);
      for (int d = axis + 1; d < rank; ++d) order.push_back(d);
      const Tensor moved = stacked.permute(std::span<const int>(order));
      const Tensor& target = context.allocate_output(out, moved.dtype(), moved.shape());
      shape_ops::copy_view_into(moved, target);
    }
  }

  void run_batched(RunContext& context) const {
    const NodeInfo& node = context.node();
    std::vector<Tensor> inputs(scan_inputs_);
    std::int64_t batch = -1;
    std::int64_t length = -1;
    for (std::size_t j = 0; j < scan_inputs_; ++j) {
      inputs[j] = context.input(1 + states_ + j);
      if (inputs[j].rank() < 2) node.fail_invalid("a scan input needs a batch and a sequence axis");
      if ((batch >= 0 && inputs[j].shape()[0] != batch) || (length >= 0 && inputs[j].shape()[1] != length)) {
        shape_ops::fail_index(node, "the scan inputs differ in batch size or sequence length");
      }
      batch = inputs[j].shape()[0];
      length = inputs[j].shape()[1];
    }
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(batch), length);
    if (context.has_input(0)) {
      lengths = shape_ops::read_ints(node, context.input(0), "sequence_lens");
      if (static_cast<std::int64_t>(lengths.size()) != batch) shape_ops::fail_index(node, "sequence_lens has another batch size");
      for (std::int64_t n : lengths) {
        if (n < 0 || n > length) shape_ops::fail_index(node, "sequence length " + std::to_string(n) + " outside [0, " + std::to_string(length) + "]");
      }
    }
    for (std::size_t v = 0; v < states_; ++v) {
      if (context.input(1 + v).rank() < 1 || context.input(1 + v).shape()[0] != batch) {
        shape_ops::fail_index(node, "state " + std::to_string(v) + " has another batch size");
      }
    }
    std::vector<Tensor> state_out(states_);
    std::vector<Tensor> scan_out(scan_outputs_);
    for (std::int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> states(states_);
      for (std::size_t v = 0; v < states_; ++v) states[v] = context.input(1 + v).select(0, b).contiguous();
      std::vector<Tensor> sequence(scan_inputs_);
      // Only the sequence's own positions are scanned (reversed within them).
      for (std::size_t j = 0; j < scan_inputs_; ++j) sequence[j] = inputs[j].select(0, b).slice(0, 0, lengths[static_cast<std::size_t>(b)]);
      ScanResult result = scan(context, states, sequence, std::vector<int>(scan_inputs_, 0),
                               lengths[static_cast<std::size_t>(b)], length);
      for (std::size_t v = 0; v < states_ && v < context.output_count(); ++v) {
        if (!context.output_wanted(v)) continue;
        const Tensor& value = result.states[v];
        if (!state_out[v].defined()) state_out[v] = batched_output(context, v, value, batch);
        check_slot(node, state_out[v], value, "state " + std::to_string(v));
        shape_ops::copy_view_into(value, state_out[v].select(0, b));
      }
      for (std::size_t k = 0; k < scan_outputs_ && states_ + k < context.output_count(); ++k) {
        const std::size_t out = states_ + k;
        if (!context.output_wanted(out) || !result.stacked[k].defined()) continue;
        if (!scan_out[k].defined()) scan_out[k] = batched_output(context, out, result.stacked[k], batch);
        check_slot(node, scan_out[k], result.stacked[k], "scan output " + std::to_string(k));
        shape_ops::copy_view_into(result.stacked[k], scan_out[k].select(0, b));
      }
    }
    // Outputs no sequence shaped (an empty batch, every sequence empty).
    for (std::size_t v = 0; v < states_ && v < context.output_count(); ++v) {
      if (context.output_wanted(v) && !state_out[v].defined()) set_output_value(context, v, input_value_of(context, 1 + v));
    }
    for (std::size_t k = 0; k < scan_outputs_ && states_ + k < context.output_count(); ++k) {
      const std::size_t out = states_ + k;
      if (context.output_wanted(out) && !scan_out[k].defined()) {
        context.allocate_output(out, declared_type(states_ + k), Shape{batch, length});
      }
    }
  }

  // A [batch, ...value] output, zero-filled (rows of empty sequences stay zero).
  static Tensor batched_output(RunContext& context, std::size_t out, const Tensor& value, std::int64_t batch) {
    std::vector<std::int64_t> extents{batch};
    for (std::int32_t e : value.shape().extents()) extents.push_back(e);
    const Tensor& t = context.allocate_output(out, value.dtype(), shape_ops::make_shape(context.node(), extents));
    // STRING elements start as empty strings (spec/tensors.md section 8): nothing to clear.
    if (t.dtype() != DType::String) std::memset(mutable_tensor_bytes(t).data(), 0, mutable_tensor_bytes(t).size());
    return t;
  }

  static void check_slot(const NodeInfo& node, const Tensor& whole, const Tensor& value, const std::string& what) {
    const Tensor row = whole.select(0, 0);
    if (row.dtype() != value.dtype() || !(row.shape() == value.shape())) {
      node.fail_invalid(what + " is " + value.shape().to_string() + " for one batch entry and " + row.shape().to_string() +
                        " for another");
    }
  }

  CompiledBody body_;
  bool batched_;
  std::size_t scan_inputs_ = 0;
  std::size_t states_ = 0;
  std::size_t scan_outputs_ = 0;
  std::vector<std::int64_t> in_directions_, out_directions_, in_axes_, out_axes_;
  std::int64_t limit_ = 0;
};

}  // namespace

std::unique_ptr<OpKernel> make_scan(const NodeInfo& node) { return std::make_unique<Scan>(node); }

}  // namespace onemodel
