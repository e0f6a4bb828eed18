#include "core/graph/node_info.hpp"

#include <cstring>
#include <vector>

#include "core/graph/constants_pool.hpp"
#include "core/session/compact_weights.hpp"
#include "core/tensor/subbyte.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {

std::string NodeInfo::name() const {
  if (!node_->name.empty()) return node_->name;
  return node_->op_type + "#" + (node_->outputs.empty() ? std::string() : node_->outputs[0]);
}

const IrAttribute* NodeInfo::find(std::string_view name) const noexcept {
  // ONNX allows one attribute per name; the last one wins like a singular protobuf field.
  const IrAttribute* found = nullptr;
  for (const auto& attribute : node_->attributes) {
    if (attribute.name == name) found = &attribute;
  }
  return found;
}

void NodeInfo::fail_invalid(const std::string& message) const {
  throw SessionError(SessionErrorKind::InvalidModel, node_->op_type + ": " + message, name());
}

void NodeInfo::fail_unsupported(const std::string& message) const {
  throw SessionError(SessionErrorKind::Unsupported, node_->op_type + ": " + message, name());
}

const IrAttribute& NodeInfo::expect(std::string_view name, AttrType type) const {
  const IrAttribute* attribute = find(name);
  if (attribute == nullptr) fail_invalid("attribute '" + std::string(name) + "' is required");
  if (!attribute->ref_attr_name.empty()) {
    fail_invalid("attribute '" + std::string(name) + "' refers to a function attribute outside a function");
  }
  if (attribute->type != type) {
    fail_invalid("attribute '" + std::string(name) + "' has type " +
                 std::to_string(static_cast<int>(attribute->type)) + ", expected " +
                 std::to_string(static_cast<int>(type)));
  }
  return *attribute;
}

std::int64_t NodeInfo::get_int(std::string_view name, std::int64_t fallback) const {
  return has(name) ? expect(name, AttrType::Int).i : fallback;
}

std::int64_t NodeInfo::required_int(std::string_view name) const { return expect(name, AttrType::Int).i; }

float NodeInfo::get_float(std::string_view name, float fallback) const {
  return has(name) ? expect(name, AttrType::Float).f : fallback;
}

std::string NodeInfo::get_string(std::string_view name, std::string_view fallback) const {
  return has(name) ? expect(name, AttrType::String).s : std::string(fallback);
}

std::vector<std::int64_t> NodeInfo::get_ints(std::string_view name, std::vector<std::int64_t> fallback) const {
  return has(name) ? expect(name, AttrType::Ints).ints : fallback;
}

std::vector<float> NodeInfo::get_floats(std::string_view name, std::vector<float> fallback) const {
  return has(name) ? expect(name, AttrType::Floats).floats : fallback;
}

std::vector<std::string> NodeInfo::get_strings(std::string_view name, std::vector<std::string> fallback) const {
  return has(name) ? expect(name, AttrType::Strings).strings : fallback;
}

std::optional<Tensor> NodeInfo::get_tensor(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  const IrAttribute& attribute = expect(name, AttrType::Tensor);
  if (attribute.tensors.empty()) fail_invalid("attribute '" + std::string(name) + "' has no tensor");
  try {
    return tensor_from_ir(attribute.tensors[0], "attribute '" + std::string(name) + "'");
  } catch (const SessionError& e) {
    throw SessionError(e.kind(), node_->op_type + ": " + e.message(), this->name());
  }
}

namespace {

// spec/tensors.md section 2.2: the file holds the elements packed (two 4-bit or four 2-bit values
// per byte, first in the low bits); memory holds one per byte. A byte count that does not fit the
// element count is InvalidModel naming the tensor (the importer and the format reader check it
// too; IrTensors built by code reach this point unchecked).
Tensor subbyte_tensor_from_ir(const IrTensor& tensor, DType type, const std::string& what, BufferPool& pool) {
  try {
    Shape shape{std::span<const std::int64_t>(tensor.dims)};
    const auto count = static_cast<std::uint64_t>(shape.element_count());
    const std::uint64_t packed = subbyte_packed_length(count, subbyte_bits(type));
    if (packed != tensor.data.size) {
      throw SessionError(SessionErrorKind::InvalidModel,
                         what + " holds " + std::to_string(tensor.data.size) + " bytes, expected " +
                             std::to_string(packed) + " for " + std::to_string(count) + " elements of " +
                             std::string(onnx_type_name(tensor.data_type)));
    }
    const auto bytes = static_cast<std::size_t>(checked_byte_size(shape, type));  // one per element
    std::vector<std::byte> elements(bytes);
    unpack_subbyte(type, tensor.data.span(), elements);
    return Tensor::from_bytes(type, shape, elements, pool);
  } catch (const TensorError& e) {
    throw SessionError(SessionErrorKind::Unsupported, what + ": " + e.message());
  }
}

Tensor tensor_from_ir_in(const IrTensor& tensor, const std::string& what, BufferPool& pool) {
  // spec/session.md section 9: a weight the session compacted is already a tensor; share it.
  if (tensor.compact) {
    if (std::optional<Tensor> shared = shared_compact_tensor(tensor)) return *shared;
  }
  if (!dtype_is_stored(tensor.data_type)) {
    throw SessionError(SessionErrorKind::Unsupported,
                       what + " has element type " + std::string(onnx_type_name(tensor.data_type)));
  }
  const DType type = static_cast<DType>(tensor.data_type);
  if (dtype_is_subbyte(type)) return subbyte_tensor_from_ir(tensor, type, what, pool);
  try {
    Shape shape{std::span<const std::int64_t>(tensor.dims)};
    if (type == DType::String) {
      // spec/tensors.md section 8: string_data holds one entry per element (checked on import,
      // spec/onnx-import.md section 3; checked again for models built in memory). The bytes are
      // kept as they are: ONNX does not require UTF-8 there, and neither does the library.
      if (tensor.strings.size() != static_cast<std::uint64_t>(shape.element_count())) {
        throw SessionError(SessionErrorKind::InvalidModel,
                           what + " holds " + std::to_string(tensor.strings.size()) + " strings, expected " +
                               std::to_string(shape.element_count()));
      }
      return Tensor::from_strings(shape, tensor.strings);
    }
    const auto bytes = static_cast<std::size_t>(checked_byte_size(shape, type));
    if (bytes != tensor.data.size) {
      throw SessionError(SessionErrorKind::InvalidModel,
                         what + " holds " + std::to_string(tensor.data.size) + " bytes, expected " +
                             std::to_string(bytes));
    }
    return Tensor::from_bytes(type, shape, tensor.data.span(), pool);
  } catch (const TensorError& e) {
    throw SessionError(SessionErrorKind::Unsupported, what + ": " + e.message());
  }
}

}  // namespace

Tensor tensor_from_ir(const IrTensor& tensor, const std::string& what) {
  return tensor_from_ir_in(tensor, what, BufferPool::shared());
}

BufferPool& constants_pool() {
  static BufferPool pool(0);
  return pool;
}

Tensor constant_from_ir(const IrTensor& tensor, const std::string& what) {
  return tensor_from_ir_in(tensor, what, constants_pool());
}

const SubgraphCompiler& NodeInfo::subgraphs() const {
  if (subgraphs_ == nullptr) fail_unsupported(ir().op_type + " holds subgraphs, and its kernel is made outside a session");
  return *subgraphs_;
}

}  // namespace onemodel
