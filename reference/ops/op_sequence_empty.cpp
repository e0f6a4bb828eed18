// SequenceEmpty (opset 11+): an empty sequence of the `dtype` attribute's element type, float by
// default (spec/ops/control-flow.md section 2).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

class SequenceEmpty final : public sequence_ops::DataDependentKernel {
 public:
  explicit SequenceEmpty(DType type) : type_(type) {}
  void run(RunContext& context) const override { set_output_value(context, 0, Value::sequence(type_, {})); }

 private:
  DType type_;
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_empty(const NodeInfo& node) {
  const std::int64_t code = node.get_int("dtype", static_cast<std::int64_t>(DType::F32));
  if (code < 0 || code > 64 || !dtype_is_stored(static_cast<std::int32_t>(code))) {
    node.fail_unsupported("dtype " + std::to_string(code) + " (" +
                          std::string(onnx_type_name(static_cast<std::int32_t>(code))) + ") is not a stored type");
  }
  return std::make_unique<SequenceEmpty>(static_cast<DType>(code));
}

}  // namespace onemodel
