// Session values (spec/values.md, from graph-runtime.md section 8): what a graph input or output
// holds. A tensor, a sequence of tensors of one element type, or an optional holding a tensor, a
// sequence or nothing. Values share their tensors (copying a Value copies no element bytes).
#pragma once

#include <memory>
#include <vector>

#include "onemodel/dtype.hpp"
#include "onemodel/tensor.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

class Value {
 public:
  enum class Kind : std::uint8_t { Tensor, Sequence, Optional };

  // An undefined tensor value (what an output slot holds before a run fills it).
  Value() = default;
  // A tensor value. Implicit so that a Tensor can be given where a Value is expected.
  Value(Tensor tensor) : tensor_(std::move(tensor)) {}  // NOLINT(google-explicit-constructor)

  // A sequence whose elements all have `element_type` (ONNX: a sequence holds tensors of one
  // type); empty is allowed. Throws SessionError(InvalidInput) for an undefined element or one of
  // another type.
  static Value sequence(DType element_type, std::vector<Tensor> elements);
  // An optional holding `content` (a tensor or a sequence; an optional never holds an optional).
  static Value optional(Value content);
  // An optional holding nothing; `of` and `element_type` say what it would hold.
  static Value empty_optional(Kind of = Kind::Tensor, DType element_type = DType::F32);

  Kind kind() const noexcept { return kind_; }
  // False only for a default-made value (an undefined tensor).
  bool defined() const noexcept { return kind_ != Kind::Tensor || tensor_.defined(); }

  // Kind::Tensor: the tensor. Throws SessionError(InvalidInput) for another kind.
  const Tensor& tensor() const;
  // Kind::Sequence: the element type and the elements; Kind::Optional: what it holds or would hold.
  DType element_type() const noexcept { return element_type_; }
  const std::vector<Tensor>& elements() const;
  // Kind::Optional: whether it holds a value, and the value (throws when empty).
  bool has_value() const;
  const Value& value() const;
  // Kind::Optional: the kind it holds or would hold (Tensor or Sequence).
  Kind optional_of() const noexcept { return optional_of_; }

 private:
  Kind kind_ = Kind::Tensor;
  Kind optional_of_ = Kind::Tensor;
  DType element_type_ = DType::F32;
  Tensor tensor_;
  std::vector<Tensor> elements_;
  std::shared_ptr<const Value> content_;  // Kind::Optional with a value
};

}  // namespace onemodel

#pragma GCC visibility pop
