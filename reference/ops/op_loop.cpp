// Loop (opset 1+): runs its body while the trip count and the condition allow, carrying N values
// from one iteration to the next and stacking K scan outputs on a new first axis
// (spec/ops/control-flow.md section 4). Inputs: M (optional int64 trip count), cond (optional
// bool), the N initial values; body inputs: the iteration number, the condition, the N carried
// values; body outputs: the condition, the N carried values, the K scan outputs.
//   M and cond given: while i < M and cond     M only: i < M, the body's condition ignored
//   cond only: while cond                       neither: until the iteration limit
// The iteration order is the only order: results do not depend on threads or paths. A loop past
// SessionOptions::max_loop_iterations is ResourceExhausted naming the node (spec/values.md
// section 5). Carried values after the first iteration are written into two buffers used in turn;
// a for-loop (M given, no cond) writes each scan output straight into its stacked output.
#include <limits>

#include "reference/ops/body_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace body_ops;

class Loop final : public OpKernel {
 public:
  explicit Loop(const NodeInfo& node) : body_(compile_body(node, "body")) {
    outputs_data_dependent = true;
    // Values of any element type pass through the body; STRING ones are copied by assignment
    // (copy_view_into, spec/tensors.md section 8).
    string_elements = true;
    const std::size_t declared = declared_input_count(node.ir());
    if (declared < 2) node.fail_invalid("needs the inputs M and cond (each may be \"\")");
    carried_ = declared - 2;
    const IrGraph& graph = body_.body->graph();
    if (graph.inputs.size() != carried_ + 2) {
      node.fail_invalid("the body takes " + std::to_string(graph.inputs.size()) + " inputs; 2 + " +
                        std::to_string(carried_) + " loop-carried values expected");
    }
    if (graph.outputs.size() < carried_ + 1) {
      node.fail_invalid("the body gives " + std::to_string(graph.outputs.size()) + " outputs; at least 1 + " +
                        std::to_string(carried_) + " expected");
    }
    scans_ = graph.outputs.size() - 1 - carried_;
    if (node.output_count() > carried_ + scans_) {
      node.fail_invalid("the node has " + std::to_string(node.output_count()) + " outputs; the body gives " +
                        std::to_string(carried_ + scans_));
    }
    limit_ = node.subgraphs().max_loop_iterations();
  }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const bool has_trip = context.has_input(0);
    const bool has_cond = context.has_input(1);
    std::int64_t trip = std::numeric_limits<std::int64_t>::max();
    if (has_trip) {
      const Tensor& m = context.input(0);
      if (m.dtype() != DType::I64 || m.element_count() != 1) node.fail_invalid("M must be an int64 tensor of one element");
      trip = std::max<std::int64_t>(0, m.contiguous().to_vector<std::int64_t>()[0]);
    }
    bool condition = has_cond ? read_condition(node, context.input(1), "cond") : true;
    // A for-loop's iterations are known now: past the limit, nothing runs.
    const bool for_loop = has_trip && !has_cond;
    if (for_loop && trip > limit_) check_iteration(node, trip - 1, limit_);

    std::vector<Tensor> current(carried_);
    for (std::size_t v = 0; v < carried_; ++v) current[v] = context.input(2 + v).contiguous();
    std::vector<Tensor> spare(carried_);  // buffers the body writes next (never the caller's inputs)
    std::vector<std::vector<Tensor>> parts(scans_);
    std::vector<Tensor> stacked(scans_);  // for-loops: the stacked outputs, filled in place
    // The body's inputs and the condition's slot are made once and refilled every iteration, so
    // an iteration whose shapes repeat allocates nothing here (spec/values.md section 3).
    const Tensor iteration = Tensor::empty(DType::I64, Shape{});
    const Tensor cond_in = Tensor::empty(DType::Bool, Shape{});
    const Tensor cond_out = Tensor::empty(DType::Bool, Shape{});
    std::vector<Tensor> inputs = body_inputs(context, body_, std::vector<Tensor>(2 + carried_));
    inputs[0] = iteration;
    inputs[1] = cond_in;
    std::vector<Tensor> outputs(1 + carried_ + scans_);
    std::int64_t i = 0;
    for (; i < trip && condition; ++i) {
      check_iteration(node, i, limit_);
      check_stop(context);
      iteration.mutable_data<std::int64_t>()[0] = i;
      cond_in.mutable_data<std::uint8_t>()[0] = 1;  // the loop runs only while cond holds
      for (std::size_t v = 0; v < carried_; ++v) inputs[2 + v] = current[v];
      outputs[0] = cond_out;
      for (std::size_t v = 0; v < carried_; ++v) outputs[1 + v] = spare[v];
      for (std::size_t k = 0; k < scans_; ++k) outputs[1 + carried_ + k] = stacked[k].defined() ? stacked[k].select(0, i) : Tensor();
      body_.body->run(context, inputs, outputs);
      if (has_cond) condition = read_condition(node, outputs[0], "the body's condition");
      for (std::size_t v = 0; v < carried_; ++v) {
        // The buffer read this iteration is written the next one, unless it is the caller's.
        spare[v] = i == 0 ? Tensor() : current[v];
        current[v] = outputs[1 + v];
      }
      for (std::size_t k = 0; k < scans_; ++k) collect_scan(context, k, i, trip, for_loop, outputs[1 + carried_ + k], parts, stacked);
    }
    for (std::size_t v = 0; v < carried_ && v < context.output_count(); ++v) {
      if (!context.output_wanted(v)) continue;
      if (i == 0) {
        set_output_value(context, v, input_value_of(context, 2 + v));
      } else {
        context.adopt_output(v, std::move(current[v]));
      }
    }
    for (std::size_t k = 0; k < scans_ && carried_ + k < context.output_count(); ++k) {
      const std::size_t out = carried_ + k;
      if (!context.output_wanted(out) || stacked[k].defined()) continue;
      stack_parts(context, out, k, parts[k]);
    }
  }

 private:
  // Scan output k of iteration i: already in place in the stacked output, the first result of a
  // for-loop (which shapes the stacked output), or kept to be stacked at the end.
  void collect_scan(RunContext& context, std::size_t k, std::int64_t i, std::int64_t trip, bool for_loop,
                    const Tensor& result, std::vector<std::vector<Tensor>>& parts, std::vector<Tensor>& stacked) const {
    const NodeInfo& node = context.node();
    if (is_packed_value(result)) node.fail_unsupported("scan output " + std::to_string(k) + " is a sequence or optional");
    if (stacked[k].defined()) {
      // Written in place by the body, unless the result's type or shape changed (BodySink).
      if (result.buffer() != stacked[k].buffer()) {
        node.fail_invalid("scan output " + std::to_string(k) + " is " + result.shape().to_string() + " in iteration " +
                          std::to_string(i) + ", another shape in iteration 0");
      }
      return;
    }
    const std::size_t out = carried_ + k;
    if (for_loop && i == 0 && out < context.output_count() && context.output_wanted(out)) {
      std::vector<std::int64_t> extents{trip};
      for (std::int32_t e : result.shape().extents()) extents.push_back(e);
      const Tensor& whole = context.allocate_output(out, result.dtype(), Shape(std::span<const std::int64_t>(extents)));
      stacked[k] = whole;
      shape_ops::copy_view_into(result, whole.select(0, 0));
      return;
    }
    parts[k].push_back(result);
  }

  // The kept scan outputs stacked on a new first axis; none: empty_scan_output.
  void stack_parts(RunContext& context, std::size_t out, std::size_t k, const std::vector<Tensor>& parts) const {
    const NodeInfo& node = context.node();
    if (parts.empty()) {
      const auto [type, shape] = empty_scan_output(body_.body->graph().outputs[1 + carried_ + k].type, 0);
      context.allocate_output(out, type, shape);
      return;
    }
    std::vector<std::int64_t> extents{static_cast<std::int64_t>(parts.size())};
    for (std::int32_t e : parts[0].shape().extents()) extents.push_back(e);
    const Tensor& whole = context.allocate_output(out, parts[0].dtype(), Shape(std::span<const std::int64_t>(extents)));
    for (std::size_t n = 0; n < parts.size(); ++n) {
      if (parts[n].dtype() != parts[0].dtype() || !(parts[n].shape() == parts[0].shape())) {
        node.fail_invalid("scan output " + std::to_string(k) + " is " + parts[n].shape().to_string() + " in iteration " +
                          std::to_string(n) + " and " + parts[0].shape().to_string() + " in iteration 0");
      }
      shape_ops::copy_view_into(parts[n], whole.select(0, static_cast<std::int64_t>(n)));
    }
  }

  CompiledBody body_;
  std::size_t carried_ = 0;
  std::size_t scans_ = 0;
  std::int64_t limit_ = 0;
};

}  // namespace

std::unique_ptr<OpKernel> make_loop(const NodeInfo& node) { return std::make_unique<Loop>(node); }

}  // namespace onemodel
