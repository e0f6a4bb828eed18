#include "core/protobuf/parse_context.hpp"

namespace onemodel::pb {

void ParseContext::fail(ModelErrorKind kind, const std::string& message, std::uint64_t offset) const {
  throw ModelError(kind, message, input_name_, offset, path_.str());
}

void ParseContext::fail_without_offset(ModelErrorKind kind, const std::string& message) const {
  throw ModelError(kind, message, input_name_, std::nullopt, path_.str());
}

void ParseContext::enter_message(std::uint64_t offset) {
  if (depth_ >= max_nesting_) {
    fail(ModelErrorKind::Malformed,
         "messages nested deeper than " + std::to_string(max_nesting_) + " levels", offset);
  }
  ++depth_;
}

}  // namespace onemodel::pb
