// SequenceMap (opset 17+): runs its body once per element of the input sequence and collects
// each body output into an output sequence (spec/ops/control-flow.md section 6). Additional
// inputs that are sequences give the body their element at the same position (they must be as
// long as the first); tensors are given whole every time. An empty input sequence gives empty
// sequences of the body outputs' declared types (float when undeclared).
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/body_helpers.hpp"

namespace onemodel {
namespace {

using namespace body_ops;

class SequenceMap final : public OpKernel {
 public:
  explicit SequenceMap(const NodeInfo& node) : body_(compile_body(node, "body")) {
    outputs_data_dependent = true;
    // Tensors and sequences of any element type pass through the body, STRING included
    // (spec/tensors.md section 8): nothing here reads element bytes.
    string_elements = true;
    inputs_ = declared_input_count(node.ir());
    const IrGraph& graph = body_.body->graph();
    if (inputs_ < 1 || graph.inputs.size() != inputs_) {
      node.fail_invalid("the body takes " + std::to_string(graph.inputs.size()) + " inputs, the node gives " +
                        std::to_string(inputs_));
    }
    if (graph.outputs.size() != node.output_count()) {
      node.fail_invalid("the body gives " + std::to_string(graph.outputs.size()) + " outputs, the node has " +
                        std::to_string(node.output_count()));
    }
    limit_ = node.subgraphs().max_loop_iterations();
  }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    std::vector<Value> given;
    for (std::size_t i = 0; i < inputs_; ++i) {
      if (!context.has_input(i)) node.fail_invalid("input " + std::to_string(i) + " is omitted");
      given.push_back(input_value_of(context, i));
      if (given.back().kind() == Value::Kind::Optional) node.fail_invalid("input " + std::to_string(i) + " is an optional");
    }
    if (given[0].kind() != Value::Kind::Sequence) node.fail_invalid("input 0 is not a sequence");
    const std::size_t count = given[0].elements().size();
    for (std::size_t i = 1; i < inputs_; ++i) {
      if (given[i].kind() == Value::Kind::Sequence && given[i].elements().size() != count) {
        shape_ops::fail_index(node, "input " + std::to_string(i) + " holds " + std::to_string(given[i].elements().size()) +
                                        " elements, input 0 " + std::to_string(count));
      }
    }
    if (static_cast<std::int64_t>(count) > limit_) check_iteration(node, static_cast<std::int64_t>(count) - 1, limit_);
    std::vector<std::vector<Tensor>> collected(node.output_count());
    for (std::size_t n = 0; n < count; ++n) {
      check_stop(context);
      std::vector<Tensor> formal;
      for (const Value& v : given) formal.push_back(v.kind() == Value::Kind::Sequence ? v.elements()[n] : v.tensor());
      const std::vector<Tensor> inputs = body_inputs(context, body_, std::move(formal));
      std::vector<Tensor> outputs(node.output_count());
      body_.body->run(context, inputs, outputs);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (is_packed_value(outputs[o])) node.fail_unsupported("body output " + std::to_string(o) + " is not a tensor");
        if (!collected[o].empty() && outputs[o].dtype() != collected[o][0].dtype()) {
          node.fail_invalid("body output " + std::to_string(o) + " changes element type");
        }
        collected[o].push_back(std::move(outputs[o]));
      }
    }
    for (std::size_t o = 0; o < collected.size(); ++o) {
      if (!context.output_wanted(o)) continue;
      const IrType& declared = body_.body->graph().outputs[o].type;
      const DType type = !collected[o].empty() ? collected[o][0].dtype()
                         : declared.kind == IrType::Kind::Tensor && dtype_is_stored(declared.elem_type)
                             ? static_cast<DType>(declared.elem_type)
                             : DType::F32;
      set_output_value(context, o, Value::sequence(type, std::move(collected[o])));
    }
  }

 private:
  CompiledBody body_;
  std::size_t inputs_ = 0;
  std::int64_t limit_ = 0;
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_map(const NodeInfo& node) { return std::make_unique<SequenceMap>(node); }

}  // namespace onemodel
