// The packed form of sequences and optionals (spec/values.md section 2). Little-endian, every
// field 8-byte aligned:
//   header   tag "OMPV" (4 bytes), kind (1 byte: 1 sequence, 2 empty optional, 3 optional tensor,
//            4 optional sequence), 3 zero bytes
//   kind 1,4 element type (int32 ONNX code), 0 (int32), count (int64), then `count` records
//   kind 2   element type (int32), what it would hold (int32: 0 tensor, 1 sequence)
//   kind 3   one record
//   record   element type (int32), rank (int32), rank extents (int64 each), the row-major element
//            bytes, zero bytes up to the next multiple of 8; for STRING elements (spec/tensors.md
//            section 8) each element in row-major order is its length (int64) and its bytes, and
//            the zero bytes follow the last one
#include "core/graph/packed_value.hpp"

#include <cstring>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/checked_math.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

enum PackedKind : std::uint8_t { kSequence = 1, kEmptyOptional = 2, kOptionalTensor = 3, kOptionalSequence = 4 };

constexpr std::int64_t kHeaderBytes = 8;

std::int64_t round_up8(std::int64_t n) { return (n + 7) / 8 * 8; }

// Bytes of one record; nullopt past the limit.
std::optional<std::int64_t> record_size(const Tensor& t) {
  if (t.dtype() == DType::String) {
    std::optional<std::int64_t> data = 0;
    for (const std::string& e : t.to_vector<std::string>()) {
      data = data ? detail::checked_add(*data, 8 + static_cast<std::int64_t>(e.size())) : data;
    }
    return data && *data <= kMaxBufferBytes ? detail::checked_add(8 + 8 * static_cast<std::int64_t>(t.rank()), round_up8(*data))
                                            : std::nullopt;
  }
  const std::int64_t data = checked_byte_size(t.shape(), t.dtype());
  return detail::checked_add(8 + 8 * static_cast<std::int64_t>(t.rank()), round_up8(data));
}

class Writer {
 public:
  explicit Writer(std::span<std::byte> out) : out_(out) {}
  void put32(std::int32_t v) { put(&v, 4); }
  void put64(std::int64_t v) { put(&v, 8); }
  void put(const void* p, std::size_t n) {
    if (n == 0) return;
    std::memcpy(out_.data() + at_, p, n);
    at_ += n;
  }
  void pad() {
    while (at_ % 8 != 0) out_[at_++] = std::byte{0};
  }
  void record(const Tensor& t) {
    put32(static_cast<std::int32_t>(t.dtype()));
    put32(t.rank());
    for (std::int32_t e : t.shape().extents()) put64(e);
    if (t.dtype() == DType::String) {
      for (const std::string& e : t.to_vector<std::string>()) {
        put64(static_cast<std::int64_t>(e.size()));
        put(e.data(), e.size());
      }
      pad();
      return;
    }
    const std::size_t bytes = static_cast<std::size_t>(checked_byte_size(t.shape(), t.dtype()));
    t.copy_to(out_.subspan(at_, bytes));
    at_ += bytes;
    pad();
  }
  std::size_t at() const { return at_; }

 private:
  std::span<std::byte> out_;
  std::size_t at_ = 0;
};

class Reader {
 public:
  Reader(std::span<const std::byte> in, const std::string& what) : in_(in), what_(what) {}
  [[noreturn]] void fail(const std::string& why) const {
    throw SessionError(SessionErrorKind::InvalidModel, what_ + ": malformed sequence or optional: " + why);
  }
  void need(std::size_t n) const {
    if (n > in_.size() - at_) fail("ends inside a field at byte " + std::to_string(at_));
  }
  std::int32_t get32() {
    need(4);
    std::int32_t v = 0;
    std::memcpy(&v, in_.data() + at_, 4);
    at_ += 4;
    return v;
  }
  std::int64_t get64() {
    need(8);
    std::int64_t v = 0;
    std::memcpy(&v, in_.data() + at_, 8);
    at_ += 8;
    return v;
  }
  DType type() {
    const std::int32_t code = get32();
    if (!dtype_is_stored(code)) fail("element type code " + std::to_string(code));
    return static_cast<DType>(code);
  }
  Tensor record() {
    const DType t = type();
    const std::int32_t rank = get32();
    if (rank < 0 || rank > kMaxRank) fail("rank " + std::to_string(rank));
    std::int64_t extents[kMaxRank] = {};
    for (std::int32_t d = 0; d < rank; ++d) extents[d] = get64();
    Shape shape;
    try {
      shape = Shape(std::span<const std::int64_t>(extents, static_cast<std::size_t>(rank)));
    } catch (const TensorError& e) {
      fail("element shape: " + e.message());
    }
    if (t == DType::String) return strings(shape);
    const std::int64_t bytes = checked_byte_size(shape, t);
    need(static_cast<std::size_t>(round_up8(bytes)));
    Tensor out = Tensor::from_bytes(t, shape, in_.subspan(at_, static_cast<std::size_t>(bytes)));
    at_ += static_cast<std::size_t>(round_up8(bytes));
    return out;
  }
  std::size_t remaining() const { return in_.size() - at_; }

 private:
  // A STRING record's elements: each length is checked against the bytes left before its string
  // is made, and the count against the bytes left (each element takes at least 8).
  Tensor strings(const Shape& shape) {
    const std::int64_t count = shape.element_count();
    if (count > static_cast<std::int64_t>(remaining() / 8)) fail("string count " + std::to_string(count));
    std::vector<std::string> values;
    values.reserve(static_cast<std::size_t>(count));
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t length = get64();
      if (length < 0 || length > static_cast<std::int64_t>(remaining())) fail("string length " + std::to_string(length));
      values.emplace_back(reinterpret_cast<const char*>(in_.data() + at_), static_cast<std::size_t>(length));
      at_ += static_cast<std::size_t>(length);
    }
    while (at_ % 8 != 0) {
      need(1);
      ++at_;
    }
    return Tensor::from_strings(shape, values);
  }

 private:
  std::span<const std::byte> in_;
  const std::string& what_;
  std::size_t at_ = 0;
};

}  // namespace

bool is_packed_value(const Tensor& tensor) noexcept {
  if (!tensor.defined() || tensor.dtype() != DType::U8 || tensor.rank() != 1 || tensor.element_count() < kHeaderBytes ||
      !tensor.is_contiguous() || tensor.is_stale()) {
    return false;
  }
  const auto bytes = tensor_bytes(tensor);
  if (std::memcmp(bytes.data(), kPackedTag, 4) != 0) return false;
  const auto kind = static_cast<std::uint8_t>(bytes[4]);
  return kind >= kSequence && kind <= kOptionalSequence;
}

bool is_packed_optional(const Tensor& tensor) noexcept {
  return is_packed_value(tensor) && static_cast<std::uint8_t>(tensor_bytes(tensor)[4]) != kSequence;
}

std::int64_t packed_size(const Value& value, const std::string& what) {
  std::optional<std::int64_t> total = kHeaderBytes;
  const auto add = [&](std::optional<std::int64_t> n) {
    total = total && n ? detail::checked_add(*total, *n) : std::nullopt;
  };
  const auto sequence = [&](const std::vector<Tensor>& elements) {
    add(16);
    for (const Tensor& e : elements) add(record_size(e));
  };
  switch (value.kind()) {
    case Value::Kind::Tensor:
      throw SessionError(SessionErrorKind::InvalidModel, what + ": a tensor has no packed form");
    case Value::Kind::Sequence: sequence(value.elements()); break;
    case Value::Kind::Optional:
      if (!value.has_value()) {
        add(8);
      } else if (value.value().kind() == Value::Kind::Tensor) {
        add(record_size(value.value().tensor()));
      } else {
        sequence(value.value().elements());
      }
      break;
  }
  if (!total || *total > kMaxBufferBytes) {
    throw SessionError(SessionErrorKind::ResourceExhausted,
                       what + ": the sequence or optional passes the tensor byte limit of 2^31 - 1");
  }
  return *total;
}

void write_packed(const Value& value, std::span<std::byte> out) {
  Writer w(out);
  w.put(kPackedTag, 4);
  std::uint8_t kind = kSequence;
  if (value.kind() == Value::Kind::Optional) {
    kind = !value.has_value() ? kEmptyOptional
           : value.value().kind() == Value::Kind::Tensor ? kOptionalTensor
                                                         : kOptionalSequence;
  }
  w.put(&kind, 1);
  w.pad();
  const auto sequence = [&](const Value& s) {
    w.put32(static_cast<std::int32_t>(s.element_type()));
    w.put32(0);
    w.put64(static_cast<std::int64_t>(s.elements().size()));
    for (const Tensor& e : s.elements()) w.record(e);
  };
  switch (kind) {
    case kSequence: sequence(value); break;
    case kEmptyOptional:
      w.put32(static_cast<std::int32_t>(value.element_type()));
      w.put32(value.optional_of() == Value::Kind::Sequence ? 1 : 0);
      break;
    case kOptionalTensor: w.record(value.value().tensor()); break;
    default: sequence(value.value()); break;
  }
}

Tensor pack_value(const Value& value, const std::string& what) {
  const std::int64_t size = packed_size(value, what);
  Tensor out = Tensor::empty(DType::U8, Shape{size});
  write_packed(value, mutable_tensor_bytes(out));
  return out;
}

Value unpack_value(const Tensor& packed, const std::string& what) {
  if (!is_packed_value(packed)) {
    throw SessionError(SessionErrorKind::InvalidModel, what + " is not a sequence or an optional");
  }
  Reader r(tensor_bytes(packed), what);
  r.get64();  // the tag and kind, checked above
  const auto kind = static_cast<std::uint8_t>(tensor_bytes(packed)[4]);
  const auto sequence = [&]() {
    const DType type = r.type();
    if (r.get32() != 0) r.fail("reserved field is not 0");
    const std::int64_t count = r.get64();
    // Each record takes at least 8 bytes: a count beyond that is refused before any reserve.
    if (count < 0 || count > static_cast<std::int64_t>(r.remaining() / 8)) r.fail("element count " + std::to_string(count));
    std::vector<Tensor> elements;
    elements.reserve(static_cast<std::size_t>(count));
    for (std::int64_t k = 0; k < count; ++k) {
      elements.push_back(r.record());
      if (elements.back().dtype() != type) r.fail("element " + std::to_string(k) + " has another element type");
    }
    return Value::sequence(type, std::move(elements));
  };
  Value out;
  switch (kind) {
    case kSequence: out = sequence(); break;
    case kEmptyOptional: {
      const DType type = r.type();
      const std::int32_t of = r.get32();
      if (of != 0 && of != 1) r.fail("empty optional of kind " + std::to_string(of));
      out = Value::empty_optional(of == 1 ? Value::Kind::Sequence : Value::Kind::Tensor, type);
      break;
    }
    case kOptionalTensor: out = Value::optional(Value(r.record())); break;
    default: out = Value::optional(sequence()); break;
  }
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " bytes after the value");
  return out;
}

Value input_value_of(const RunContext& context, std::size_t i) {
  const Tensor& t = context.input(i);
  if (is_packed_value(t)) return unpack_value(t, "input " + std::to_string(i));
  return Value(t.contiguous());
}

void set_output_value(RunContext& context, std::size_t i, const Value& value) {
  if (value.kind() == Value::Kind::Tensor) {
    const Tensor& t = value.tensor();
    const Tensor& out = context.allocate_output(i, t.dtype(), t.shape());
    // STRING elements are assigned, never copied as bytes (spec/tensors.md section 8).
    if (t.dtype() == DType::String) {
      t.copy_elements_to(out);
    } else {
      t.copy_to(mutable_tensor_bytes(out));
    }
    return;
  }
  const std::string what = "output " + std::to_string(i);
  const std::int64_t size = packed_size(value, what);
  const Tensor& out = context.allocate_output(i, DType::U8, Shape{size});
  write_packed(value, mutable_tensor_bytes(out));
}

}  // namespace onemodel
