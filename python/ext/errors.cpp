#include "errors.hpp"

#include <exception>
#include <new>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>

#include "onemodel/ctc.hpp"
#include "onemodel/error.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

namespace nb = nanobind;

namespace onemodel::python {
namespace {

// Raises onemodel._errors.<kind>(text) with the error's details as attributes. Runs with the GIL
// held (nanobind calls translators after the bound function has returned or unwound).
void raise(const char* kind, const std::string& text, const char* source, const std::string& message,
           const std::string& node_name = {}, const std::vector<std::string>& operators = {}) {
  nb::object errors = nb::module_::import_("onemodel._errors");
  nb::object cls = errors.attr("error_class")(kind);
  nb::list ops;
  for (const std::string& op : operators) ops.append(op);
  nb::object instance = cls(text);
  instance.attr("kind") = kind;
  instance.attr("source") = source;
  instance.attr("message") = message;
  instance.attr("node_name") = node_name;
  instance.attr("operators") = ops;
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

// spec/errors.md section 4: the kind and message, then where, then the operators involved (the
// C API's text, core/c_api/c_errors.cpp).
std::string session_text(const SessionError& e) {
  std::string text = std::string(to_string(e.kind())).append(": ").append(e.message());
  if (!e.node_name().empty()) text.append("\n  at node ").append(e.node_name());
  for (const std::string& op : e.operators()) text.append("\n  operator ").append(op);
  return text;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const ModelError& e) {
    raise(to_string(e.kind()), e.describe(), "model", e.message());
  } catch (const SessionError& e) {
    raise(to_string(e.kind()), session_text(e), "session", e.message(), e.node_name(), e.operators());
  } catch (const TensorError& e) {
    raise(to_string(e.kind()), std::string(to_string(e.kind())).append(": ").append(e.message()), "tensor",
          e.message());
  } catch (const ctc::CtcError& e) {
    raise(ctc::to_string(e.kind()), std::string(ctc::to_string(e.kind())).append(": ").append(e.message()), "ctc",
          e.message());
  }
  // Anything else (std::bad_alloc: MemoryError, nanobind's own errors) goes to the next
  // translator; nanobind's default turns a std::exception into RuntimeError.
}

}  // namespace

void bind_errors(nb::module_&) { nb::register_exception_translator(translate); }

}  // namespace onemodel::python
