// Errors raised by sessions (spec/session.md section 5, from graph-runtime.md section 4 and
// cookbook-missing-operators.md): one type with a kind, the node's name where there is one, and
// the list of operators involved.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

enum class SessionErrorKind {
  UnsupportedOperator,   // an operator (domain, type, opset) has no kernel; all are listed
  ExactModeUnavailable,  // exact mode asked for, and some operators have no exact kernel; all listed
  InvalidModel,          // the graph or a node's attributes are malformed
  Unsupported,           // a valid case this library does not handle (an element type, an attribute value)
  InvalidInput,          // a wrong input name, element type, rank or extent, or an input value a node refuses
  Disposed,              // the session was disposed
  ResourceExhausted,     // the run would pass the session's memory limit (spec/session.md section 7)
  Cancelled,             // the run was cancelled or passed its deadline (spec/session.md section 8)
};

const char* to_string(SessionErrorKind kind) noexcept;

class SessionError : public std::runtime_error {
 public:
  SessionError(SessionErrorKind kind, std::string message, std::string node_name = {},
               std::vector<std::string> operators = {});

  SessionErrorKind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& node_name() const noexcept { return node_name_; }
  // "Type (opset N)" for UnsupportedOperator, "Type" for ExactModeUnavailable.
  const std::vector<std::string>& operators() const noexcept { return operators_; }

 private:
  SessionErrorKind kind_;
  std::string message_;
  std::string node_name_;
  std::vector<std::string> operators_;
};

}  // namespace onemodel

#pragma GCC visibility pop
