#include "core/session/tensor_info.hpp"

#include <string>

#include "onemodel/dtype.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {

TensorInfo tensor_info_from(const IrValueInfo& value) {
  TensorInfo info;
  info.name = value.name;
  switch (value.type.kind) {
    case IrType::Kind::Tensor: info.kind = ValueKind::Tensor; break;
    case IrType::Kind::None: info.kind = ValueKind::Tensor; break;
    case IrType::Kind::Sequence: info.kind = ValueKind::Sequence; break;
    case IrType::Kind::Optional: info.kind = ValueKind::Optional; break;
    default: info.kind = ValueKind::Other; break;
  }
  if (value.type.kind == IrType::Kind::Tensor) {
    info.element_type = value.type.elem_type;
    info.has_rank = value.type.has_shape;
    info.dims = value.type.shape;
  }
  return info;
}

std::vector<TensorInfo> required_inputs(const IrGraph& graph) {
  std::vector<TensorInfo> result;
  for (const IrValueInfo& input : graph.inputs) {
    bool has_default = false;
    for (const IrTensor& initializer : graph.initializers) has_default = has_default || initializer.name == input.name;
    if (!has_default) result.push_back(tensor_info_from(input));
  }
  return result;
}

std::vector<TensorInfo> declared_outputs(const IrGraph& graph) {
  std::vector<TensorInfo> result;
  for (const IrValueInfo& output : graph.outputs) result.push_back(tensor_info_from(output));
  return result;
}

void check_input_against(const TensorInfo& info, const Tensor& tensor) {
  auto fail = [&](const std::string& why) {
    throw SessionError(SessionErrorKind::InvalidInput, "input '" + info.name + "': " + why);
  };
  if (!tensor.defined()) fail("no tensor given");
  if (info.kind != ValueKind::Tensor) fail("sequence and optional inputs are not supported yet");
  if (info.element_type != 0 && info.element_type != static_cast<std::int32_t>(tensor.dtype())) {
    fail("element type " + std::string(dtype_name(tensor.dtype())) + " given, the model declares " +
         std::string(onnx_type_name(info.element_type)));
  }
  if (!info.has_rank) return;
  if (static_cast<std::size_t>(tensor.rank()) != info.dims.size()) {
    fail("rank " + std::to_string(tensor.rank()) + " given, the model declares rank " +
         std::to_string(info.dims.size()));
  }
  for (std::size_t d = 0; d < info.dims.size(); ++d) {
    if (info.dims[d].kind == IrDim::Kind::Value && info.dims[d].value != tensor.shape()[static_cast<int>(d)]) {
      fail("dimension " + std::to_string(d) + " is " + std::to_string(tensor.shape()[static_cast<int>(d)]) +
           ", the model fixes it at " + std::to_string(info.dims[d].value));
    }
  }
}

}  // namespace onemodel
