#include "onemodel/error.hpp"

namespace onemodel {

const char* to_string(ModelErrorKind kind) noexcept {
  switch (kind) {
    case ModelErrorKind::Malformed: return "Malformed";
    case ModelErrorKind::InvalidModel: return "InvalidModel";
    case ModelErrorKind::Unsupported: return "Unsupported";
    case ModelErrorKind::ExternalData: return "ExternalData";
    case ModelErrorKind::Io: return "Io";
  }
  return "Unknown";
}

namespace {
std::string compose(ModelErrorKind kind, const std::string& message) {
  return std::string(to_string(kind)) + ": " + message;
}
}  // namespace

ModelError::ModelError(ModelErrorKind kind, std::string message, std::string input_name,
                       std::optional<std::uint64_t> offset, std::string field_path)
    : std::runtime_error(compose(kind, message)),
      kind_(kind),
      message_(std::move(message)),
      input_name_(std::move(input_name)),
      offset_(offset),
      field_path_(std::move(field_path)) {}

std::string ModelError::describe() const {
  std::string out = compose(kind_, message_);
  std::string where;
  if (!field_path_.empty()) where += "at " + field_path_;
  if (offset_) where += (where.empty() ? "" : ", ") + std::string("offset ") + std::to_string(*offset_);
  if (!input_name_.empty()) where += (where.empty() ? "" : ", ") + std::string("in ") + input_name_;
  if (!where.empty()) out += " (" + where + ")";
  return out;
}

}  // namespace onemodel
