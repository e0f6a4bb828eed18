// Session values (spec/values.md section 1).
#include "onemodel/value.hpp"

#include <string>

#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

[[noreturn]] void wrong_kind(const char* wanted) {
  throw SessionError(SessionErrorKind::InvalidInput, std::string("the value is not ") + wanted);
}

// A type the library stores (TensorError(Type) otherwise); STRING included.
void check_value_element_type(DType element_type) {
  if (element_type != DType::String) (void)dtype_size(element_type);
}

}  // namespace

Value Value::sequence(DType element_type, std::vector<Tensor> elements) {
  check_value_element_type(element_type);
  for (std::size_t k = 0; k < elements.size(); ++k) {
    if (!elements[k].defined()) {
      throw SessionError(SessionErrorKind::InvalidInput, "sequence element " + std::to_string(k) + " is undefined");
    }
    if (elements[k].dtype() != element_type) {
      throw SessionError(SessionErrorKind::InvalidInput,
                         "sequence element " + std::to_string(k) + " is " + std::string(dtype_name(elements[k].dtype())) +
                             ", the sequence holds " + std::string(dtype_name(element_type)));
    }
  }
  Value v;
  v.kind_ = Kind::Sequence;
  v.element_type_ = element_type;
  v.elements_ = std::move(elements);
  return v;
}

Value Value::optional(Value content) {
  if (content.kind() == Kind::Optional) {
    throw SessionError(SessionErrorKind::InvalidInput, "an optional cannot hold an optional");
  }
  if (!content.defined()) throw SessionError(SessionErrorKind::InvalidInput, "an optional cannot hold an undefined tensor");
  Value v;
  v.kind_ = Kind::Optional;
  v.optional_of_ = content.kind();
  v.element_type_ = content.kind() == Kind::Tensor ? content.tensor().dtype() : content.element_type();
  v.content_ = std::make_shared<const Value>(std::move(content));
  return v;
}

Value Value::empty_optional(Kind of, DType element_type) {
  if (of == Kind::Optional) throw SessionError(SessionErrorKind::InvalidInput, "an optional cannot hold an optional");
  check_value_element_type(element_type);
  Value v;
  v.kind_ = Kind::Optional;
  v.optional_of_ = of;
  v.element_type_ = element_type;
  return v;
}

const Tensor& Value::tensor() const {
  if (kind_ != Kind::Tensor) wrong_kind("a tensor");
  return tensor_;
}

const std::vector<Tensor>& Value::elements() const {
  if (kind_ != Kind::Sequence) wrong_kind("a sequence");
  return elements_;
}

bool Value::has_value() const {
  if (kind_ != Kind::Optional) wrong_kind("an optional");
  return content_ != nullptr;
}

const Value& Value::value() const {
  if (!has_value()) throw SessionError(SessionErrorKind::InvalidInput, "the optional holds no value");
  return *content_;
}

}  // namespace onemodel
