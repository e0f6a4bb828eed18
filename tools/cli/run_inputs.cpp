#include "tools/cli/run_inputs.hpp"

#include <cstdint>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {

std::pair<std::string, std::string> parse_input_arg(const std::string& command, const std::string& value) {
  // Input names with '=' cannot be given this way.
  const std::size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
    throw UsageError(command + ": --input takes NAME=FILE.npy, not '" + value + "'");
  }
  return {value.substr(0, eq), value.substr(eq + 1)};
}

int parse_count_arg(const std::string& command, const std::string& option, const std::string& value, int low,
                    int high) {
  int count = -1;
  if (!value.empty() && value.size() <= 7 && value.find_first_not_of("0123456789") == std::string::npos) {
    count = std::stoi(value);
  }
  if (count < low || count > high) {
    throw UsageError(command + ": " + option + " takes " + std::to_string(low) + " to " + std::to_string(high) +
                     ", not '" + value + "'");
  }
  return count;
}

Tensor as_declared(const Tensor& tensor, const Session& session, const std::string& name) {
  for (const TensorInfo& info : session.inputs()) {
    if (info.name == name && info.element_type == static_cast<std::int32_t>(DType::BF16) &&
        tensor.dtype() == DType::U16) {
      return Tensor::from_bytes(DType::BF16, tensor.shape(), tensor_bytes(tensor));
    }
    // 8-bit floats have no .npy type either: a uint8 file holds their bits (spec/tensors.md section 2).
    if (info.name == name && dtype_is_float8(static_cast<DType>(info.element_type)) && tensor.dtype() == DType::U8) {
      return Tensor::from_bytes(static_cast<DType>(info.element_type), tensor.shape(), tensor_bytes(tensor));
    }
    // A 4- or 2-bit input read from an int8 (INT4, INT2) or uint8 (UINT4, UINT2, FLOAT4E2M1 codes)
    // .npy file, one element per byte, every value checked (spec/tensors.md section 2.2).
    const auto declared = static_cast<DType>(info.element_type);
    if (info.name == name && dtype_is_subbyte(declared)) {
      const bool is_signed = declared == DType::I4 || declared == DType::I2;
      if (tensor.dtype() != (is_signed ? DType::I8 : DType::U8)) return tensor;
      const Tensor c = tensor.contiguous();
      const auto bytes = tensor_bytes(c);
      for (const std::byte b : bytes) {
        if (!subbyte_byte_is_valid(declared, std::to_integer<std::uint8_t>(b))) {
          throw conformance::NpyError("input '" + name + "': value " +
                                      std::to_string(is_signed ? static_cast<int>(static_cast<std::int8_t>(b))
                                                               : std::to_integer<int>(b)) +
                                      " is outside " + std::string(onnx_type_name(info.element_type)));
        }
      }
      return Tensor::from_bytes(declared, c.shape(), bytes);
    }
  }
  return tensor;
}

int report_input_file_error(const conformance::NpyError& error, std::ostream& err) {
  std::string message = error.what();
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  err << "InvalidInput: " << message << "\n";
  return kExitInput;
}

}  // namespace onemodel::cli
