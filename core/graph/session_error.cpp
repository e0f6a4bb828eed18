#include "onemodel/session_error.hpp"

namespace onemodel {

const char* to_string(SessionErrorKind kind) noexcept {
  switch (kind) {
    case SessionErrorKind::UnsupportedOperator: return "UnsupportedOperator";
    case SessionErrorKind::ExactModeUnavailable: return "ExactModeUnavailable";
    case SessionErrorKind::InvalidModel: return "InvalidModel";
    case SessionErrorKind::Unsupported: return "Unsupported";
    case SessionErrorKind::InvalidInput: return "InvalidInput";
    case SessionErrorKind::Disposed: return "Disposed";
    case SessionErrorKind::ResourceExhausted: return "ResourceExhausted";
    case SessionErrorKind::Cancelled: return "Cancelled";
  }
  return "Unknown";
}

namespace {
std::string compose(SessionErrorKind kind, const std::string& message, const std::string& node) {
  std::string out = std::string(to_string(kind)) + ": " + message;
  if (!node.empty()) out += " (node '" + node + "')";
  return out;
}
}  // namespace

SessionError::SessionError(SessionErrorKind kind, std::string message, std::string node_name,
                           std::vector<std::string> operators)
    : std::runtime_error(compose(kind, message, node_name)),
      kind_(kind),
      message_(std::move(message)),
      node_name_(std::move(node_name)),
      operators_(std::move(operators)) {}

}  // namespace onemodel
