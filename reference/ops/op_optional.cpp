// Optional (opset 15+): an optional holding the input, or, without one, an empty optional of the
// `type` attribute's kind and element type (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class Optional final : public sequence_ops::DataDependentKernel {
 public:
  Optional(Value::Kind of, DType type) : of_(of), type_(type) {}
  void run(RunContext& context) const override {
    if (!context.has_input(0)) {
      set_output_value(context, 0, Value::empty_optional(of_, type_));
      return;
    }
    const Value content = input_value_of(context, 0);
    if (content.kind() == Value::Kind::Optional) context.node().fail_invalid("an optional cannot hold an optional");
    set_output_value(context, 0, Value::optional(content));
  }

 private:
  Value::Kind of_;
  DType type_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optional(const NodeInfo& node) {
  Value::Kind of = Value::Kind::Tensor;
  DType type = DType::F32;
  if (const IrAttribute* attribute = node.find("type")) {
    if (attribute->type != AttrType::TypeProto || attribute->type_protos.empty()) {
      node.fail_invalid("attribute 'type' must be a TypeProto");
    }
    const IrType* held = &attribute->type_protos[0];
    if (held->kind == IrType::Kind::Sequence) {
      of = Value::Kind::Sequence;
      if (held->inner.empty()) node.fail_invalid("attribute 'type' is a sequence of no declared type");
      held = &held->inner[0];
    }
    if (held->kind != IrType::Kind::Tensor) node.fail_unsupported("an optional of this type is not supported");
    if (!dtype_is_stored(held->elem_type)) {
      node.fail_unsupported("element type " + std::string(onnx_type_name(held->elem_type)) + " is not stored");
    }
    type = static_cast<DType>(held->elem_type);
  } else if (!node.has_input(0)) {
    node.fail_invalid("needs an input or the 'type' attribute");
  }
  return std::make_unique<Optional>(of, type);
}

}  // namespace onemodel
