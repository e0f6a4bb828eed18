#include "onemodel/tensor_error.hpp"

namespace onemodel {

const char* to_string(TensorErrorKind kind) noexcept {
  switch (kind) {
    case TensorErrorKind::Shape: return "TensorShape";
    case TensorErrorKind::View: return "TensorView";
    case TensorErrorKind::Index: return "TensorIndex";
    case TensorErrorKind::Type: return "TensorType";
    case TensorErrorKind::Stale: return "StaleTensor";
    case TensorErrorKind::Pool: return "BufferPool";
    case TensorErrorKind::Overrun: return "BufferOverrun";
  }
  return "Tensor";
}

TensorError::TensorError(TensorErrorKind kind, std::string message)
    : std::runtime_error(std::string(to_string(kind)) + ": " + message),
      kind_(kind),
      message_(std::move(message)) {}

}  // namespace onemodel
