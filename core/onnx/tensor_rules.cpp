#include "core/onnx/tensor_rules.hpp"

#include <memory>
#include <string>

#include "core/onnx/element_types.hpp"
#include "core/onnx/typed_data.hpp"

namespace onemodel::onnx {

std::uint64_t packed_byte_length(std::uint64_t count, int bits) noexcept {
  const auto b = static_cast<std::uint64_t>(bits);
  // count = 8q + r: count*bits/8 = q*bits + r*bits/8, with q*bits <= 2^57 * 128.
  return (count / 8) * b + ((count % 8) * b + 7) / 8;
}

std::optional<std::uint64_t> element_count(const std::vector<std::int64_t>& dims) noexcept {
  for (std::int64_t d : dims) {
    if (d == 0) return 0;  // an empty tensor, whatever the other dimensions say
  }
  std::uint64_t count = 1;
  for (std::int64_t d : dims) {
    const auto u = static_cast<std::uint64_t>(d);
    if (count > kMaxElementCount / u) return std::nullopt;
    count *= u;
  }
  if (count > kMaxElementCount) return std::nullopt;
  return count;
}

namespace {

ByteView owned_bytes(std::vector<std::byte>&& bytes) {
  if (bytes.empty()) return ByteView{};
  auto owner = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return ByteView{owner->data(), owner->size(), owner};
}

std::size_t typed_count(const TensorFields& t, TypedField f) {
  switch (f) {
    case TypedField::Float: return t.float_data.size();
    case TypedField::Double: return t.double_data.size();
    case TypedField::Int64: return t.int64_data.size();
    case TypedField::Uint64: return t.uint64_data.size();
    case TypedField::Int32: return t.int32_data.size();
    case TypedField::String: return t.string_data.size();
    case TypedField::None: break;
  }
  return 0;
}

}  // namespace

IrTensor build_tensor(ImportContext& ctx, TensorFields&& t) {
  pb::ParseContext& pc = ctx.pb;
  const std::uint64_t at = t.offset;
  IrTensor out;
  out.name = std::move(t.name);
  out.doc_string = std::move(t.doc_string);
  out.data_type = t.data_type;

  // Element type: codes 1..28.
  const int bits = element_bits(t.data_type);
  if (t.data_type == 0) pc.fail(ModelErrorKind::InvalidModel, "tensor has no data_type", at);
  if (bits < 0) pc.fail(ModelErrorKind::Unsupported, "unknown tensor data_type " + std::to_string(t.data_type), at);

  // spec/onnx-import.md section 3: dimensions non-negative, count <= 2^60.
  out.dims.reserve(t.dims.size());
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    const auto d = static_cast<std::int64_t>(t.dims[i]);
    if (d < 0) {
      pb::PathScope s(pc, "dims", static_cast<std::int64_t>(i));
      pc.fail(ModelErrorKind::InvalidModel, "negative dimension " + std::to_string(d), at);
    }
    out.dims.push_back(d);
  }
  const std::optional<std::uint64_t> count = element_count(out.dims);
  if (!count) pc.fail(ModelErrorKind::InvalidModel, "tensor has more than 2^60 elements", at);
  const bool is_string = t.data_type == onnx_type::kString;
  // Decided from the dimensions alone, before any data is looked at.
  const std::uint64_t expected = is_string ? 0 : packed_byte_length(*count, bits);
  if (expected > kMaxTensorBytes) {
    pc.fail(ModelErrorKind::Unsupported,
            "tensor needs " + std::to_string(expected) + " bytes, more than 2^31-1", at);
  }
  if (t.has_segment) pc.fail(ModelErrorKind::Unsupported, "tensor segments are not supported", at);

  // Where the values come from: EXTERNAL, else raw_data, else the typed field; never two.
  const bool external = t.data_location == 1;
  const TypedField own = typed_field_for(t.data_type);
  int sources = (external ? 1 : 0) + (t.has_raw_data ? 1 : 0);
  TypedField present = TypedField::None;
  for (TypedField f : {TypedField::Float, TypedField::Double, TypedField::Int64, TypedField::Uint64,
                       TypedField::Int32, TypedField::String}) {
    if (typed_count(t, f) == 0) continue;
    ++sources;
    present = f;
  }
  if (sources > 1) pc.fail(ModelErrorKind::InvalidModel, "tensor mixes data sources", at);
  if (present != TypedField::None && present != own) {
    pb::PathScope s(pc, typed_field_name(present));
    pc.fail(ModelErrorKind::InvalidModel,
            std::string(typed_field_name(present)) + " cannot hold data_type " + std::to_string(t.data_type), at);
  }

  if (is_string) {
    // Strings live only in string_data, one entry per element.
    if (external || t.has_raw_data) {
      pc.fail(ModelErrorKind::InvalidModel, "string tensors keep their values only in string_data", at);
    }
    if (t.string_data.size() != *count) {
      pb::PathScope s(pc, "string_data");
      pc.fail(ModelErrorKind::InvalidModel,
              std::to_string(t.string_data.size()) + " strings for " + std::to_string(*count) + " elements", at);
    }
    out.strings = std::move(t.string_data);
    return out;
  }

  if (external) {
    out.data = ctx.external.view(pc, at, t.external_data, expected);
    return out;
  }
  if (t.has_raw_data) {
    if (t.raw_data.size != expected) {
      pb::PathScope s(pc, "raw_data");
      pc.fail(ModelErrorKind::InvalidModel,
              "raw_data has " + std::to_string(t.raw_data.size) + " bytes, expected " + std::to_string(expected), at);
    }
    out.data = std::move(t.raw_data);
    return out;
  }
  if (present == TypedField::None) {
    if (expected != 0) pc.fail(ModelErrorKind::InvalidModel, "tensor has elements but no data", at);
    return out;
  }
  pb::PathScope s(pc, typed_field_name(present));
  // 6-bit types: one entry per element (the packed length alone cannot tell 3 from 4 entries).
  if (bits == 6 && t.int32_data.size() != *count) {
    pc.fail(ModelErrorKind::InvalidModel,
            std::to_string(t.int32_data.size()) + " entries for " + std::to_string(*count) + " elements", at);
  }
  std::vector<std::byte> bytes = convert_typed_field(t, present, t.data_type);
  if (bytes.size() != expected) {
    pc.fail(ModelErrorKind::InvalidModel,
            "typed data converts to " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected), at);
  }
  out.data = owned_bytes(std::move(bytes));
  return out;
}

}  // namespace onemodel::onnx
