#include "core/c_api/c_errors.hpp"

#include <exception>
#include <new>

#include "onemodel/error.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::c_api {
namespace {

onemodel_status code_of(ModelErrorKind kind) noexcept {
  switch (kind) {
    case ModelErrorKind::Malformed: return ONEMODEL_MALFORMED;
    case ModelErrorKind::InvalidModel: return ONEMODEL_INVALID_MODEL_FILE;
    case ModelErrorKind::Unsupported: return ONEMODEL_UNSUPPORTED_FILE;
    case ModelErrorKind::ExternalData: return ONEMODEL_EXTERNAL_DATA;
    case ModelErrorKind::Io: return ONEMODEL_IO;
  }
  return ONEMODEL_INTERNAL;
}

onemodel_status code_of(SessionErrorKind kind) noexcept {
  switch (kind) {
    case SessionErrorKind::UnsupportedOperator: return ONEMODEL_UNSUPPORTED_OPERATOR;
    case SessionErrorKind::ExactModeUnavailable: return ONEMODEL_EXACT_MODE_UNAVAILABLE;
    case SessionErrorKind::InvalidModel: return ONEMODEL_INVALID_MODEL;
    case SessionErrorKind::Unsupported: return ONEMODEL_UNSUPPORTED;
    case SessionErrorKind::InvalidInput: return ONEMODEL_INVALID_INPUT;
    case SessionErrorKind::Disposed: return ONEMODEL_DISPOSED;
    case SessionErrorKind::ResourceExhausted: return ONEMODEL_RESOURCE_EXHAUSTED;
    case SessionErrorKind::Cancelled: return ONEMODEL_CANCELLED;
  }
  return ONEMODEL_INTERNAL;
}

onemodel_status code_of(TensorErrorKind kind) noexcept {
  switch (kind) {
    case TensorErrorKind::Shape: return ONEMODEL_TENSOR_SHAPE;
    case TensorErrorKind::View: return ONEMODEL_TENSOR_VIEW;
    case TensorErrorKind::Index: return ONEMODEL_TENSOR_INDEX;
    case TensorErrorKind::Type: return ONEMODEL_TENSOR_TYPE;
    case TensorErrorKind::Stale: return ONEMODEL_TENSOR_STALE;
    case TensorErrorKind::Pool: return ONEMODEL_TENSOR_POOL;
    case TensorErrorKind::Overrun: return ONEMODEL_TENSOR_OVERRUN;
  }
  return ONEMODEL_INTERNAL;
}

// spec/errors.md section 4: the kind and message, then where, then the operators involved.
std::string session_text(const SessionError& e) {
  std::string text = std::string(to_string(e.kind())).append(": ").append(e.message());
  if (!e.node_name().empty()) text.append("\n  at node ").append(e.node_name());
  for (const std::string& op : e.operators()) text.append("\n  operator ").append(op);
  return text;
}

}  // namespace

onemodel_status fail(onemodel_error** error, onemodel_status code, std::string message) noexcept {
  if (error != nullptr) {
    try {
      *error = new onemodel_error{code, std::move(message)};
    } catch (...) {
      *error = nullptr;
    }
  }
  return code;
}

onemodel_status fail_current(onemodel_error** error) noexcept {
  try {
    throw;
  } catch (const ModelError& e) {
    return fail(error, code_of(e.kind()), e.describe());
  } catch (const SessionError& e) {
    return fail(error, code_of(e.kind()), session_text(e));
  } catch (const TensorError& e) {
    return fail(error, code_of(e.kind()), std::string(to_string(e.kind())).append(": ").append(e.message()));
  } catch (const std::bad_alloc&) {
    return fail(error, ONEMODEL_OUT_OF_MEMORY, "OutOfMemory: an allocation failed");
  } catch (const std::exception& e) {
    return fail(error, ONEMODEL_INTERNAL, std::string("Internal: ").append(e.what()));
  } catch (...) {
    return fail(error, ONEMODEL_INTERNAL, "Internal: an unknown exception");
  }
}

}  // namespace onemodel::c_api

extern "C" {

onemodel_status onemodel_error_code(const onemodel_error* error) {
  return error == nullptr ? ONEMODEL_OK : error->code;
}

const char* onemodel_error_message(const onemodel_error* error) {
  return error == nullptr ? "" : error->message.c_str();
}

void onemodel_error_free(onemodel_error* error) { delete error; }

const char* onemodel_status_name(onemodel_status status) {
  switch (status) {
    case ONEMODEL_OK: return "Ok";
    case ONEMODEL_INVALID_ARGUMENT: return "InvalidArgument";
    case ONEMODEL_OUT_OF_MEMORY: return "OutOfMemory";
    case ONEMODEL_INTERNAL: return "Internal";
    case ONEMODEL_BUFFER_TOO_SMALL: return "BufferTooSmall";
    case ONEMODEL_MALFORMED: return "Malformed";
    case ONEMODEL_INVALID_MODEL_FILE: return "InvalidModel";
    case ONEMODEL_UNSUPPORTED_FILE: return "Unsupported";
    case ONEMODEL_EXTERNAL_DATA: return "ExternalData";
    case ONEMODEL_IO: return "Io";
    case ONEMODEL_UNSUPPORTED_OPERATOR: return "UnsupportedOperator";
    case ONEMODEL_EXACT_MODE_UNAVAILABLE: return "ExactModeUnavailable";
    case ONEMODEL_INVALID_MODEL: return "InvalidModel";
    case ONEMODEL_UNSUPPORTED: return "Unsupported";
    case ONEMODEL_INVALID_INPUT: return "InvalidInput";
    case ONEMODEL_DISPOSED: return "Disposed";
    case ONEMODEL_RESOURCE_EXHAUSTED: return "ResourceExhausted";
    case ONEMODEL_CANCELLED: return "Cancelled";
    case ONEMODEL_TENSOR_SHAPE: return "Shape";
    case ONEMODEL_TENSOR_VIEW: return "View";
    case ONEMODEL_TENSOR_INDEX: return "Index";
    case ONEMODEL_TENSOR_TYPE: return "Type";
    case ONEMODEL_TENSOR_STALE: return "Stale";
    case ONEMODEL_TENSOR_POOL: return "Pool";
    case ONEMODEL_TENSOR_OVERRUN: return "Overrun";
  }
  return "Unknown";
}

}  // extern "C"
