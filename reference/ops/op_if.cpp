// If (opset 1+): runs then_branch when the condition (a one-element bool tensor) is true, else
// else_branch, once; the node's outputs are the branch's (spec/ops/control-flow.md section 3).
// Both branches are compiled when the session is made. A branch declaring another number of
// outputs than the node has, or outputs whose kind, element type or rank disagree with the
// node's declared outputs, is InvalidModel then; a result disagreeing while running is too.
#include "reference/ops/body_helpers.hpp"

namespace onemodel {
namespace {

using namespace body_ops;

class If final : public OpKernel {
 public:
  explicit If(const NodeInfo& node)
      : then_(compile_body(node, "then_branch")), else_(compile_body(node, "else_branch")) {
    outputs_data_dependent = true;
    string_elements = true;  // hands on the branch's values of any element type (spec/tensors.md section 8)
    const SubgraphCompiler& subgraphs = node.subgraphs();
    for (const CompiledBody* branch : {&then_, &else_}) {
      const IrGraph& graph = branch->body->graph();
      if (graph.outputs.size() != node.output_count()) {
        node.fail_invalid("branch '" + graph.name + "' has " + std::to_string(graph.outputs.size()) +
                          " outputs, the node " + std::to_string(node.output_count()));
      }
      for (std::size_t i = 0; i < graph.outputs.size(); ++i) {
        const IrType* declared = subgraphs.declared_type(node.ir().outputs[i]);
        if (declared != nullptr && types_disagree(*declared, graph.outputs[i].type)) {
          node.fail_invalid("output " + std::to_string(i) + " of branch '" + graph.name +
                            "' disagrees in kind, element type or rank with the node's output '" +
                            node.ir().outputs[i] + "'");
        }
      }
    }
    for (const std::string& name : node.ir().outputs) declared_.push_back(name.empty() ? nullptr : subgraphs.declared_type(name));
  }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    const bool condition = read_condition(context.node(), context.input(0), "cond");
    const CompiledBody& branch = condition ? then_ : else_;
    const std::vector<Tensor> inputs = body_inputs(context, branch, {});
    std::vector<Tensor> results(branch.body->output_count());
    branch.body->run(context, inputs, results);
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!context.output_wanted(i)) continue;
      const IrType* declared = declared_[i] != nullptr ? declared_[i] : &branch.body->graph().outputs[i].type;
      check_declared(context.node(), declared, results[i], "output " + std::to_string(i));
      context.adopt_output(i, std::move(results[i]));
    }
  }

 private:
  CompiledBody then_;
  CompiledBody else_;
  std::vector<const IrType*> declared_;  // by node output; nullptr when undeclared
};

}  // namespace

std::unique_ptr<OpKernel> make_if(const NodeInfo& node) { return std::make_unique<If>(node); }

}  // namespace onemodel
