// How the C interface (include/onemodel/onemodel.h) turns the C++ errors into a status and the
// "<Kind>: <message>" text: every entry point runs its body through guarded(), so no exception
// crosses into C.
#pragma once

#include <string>
#include <utility>

#include "onemodel/onemodel.h"

struct onemodel_error {
  onemodel_status code;
  std::string message;
};

namespace onemodel::c_api {

// Stores an error (when `error` is not NULL) and returns its code. Never throws: when even the
// error object cannot be allocated, `*error` is left NULL and the code is still returned.
onemodel_status fail(onemodel_error** error, onemodel_status code, std::string message) noexcept;

// The status and text of the exception being handled (call inside a catch block).
onemodel_status fail_current(onemodel_error** error) noexcept;

template <class Body>
onemodel_status guarded(onemodel_error** error, Body&& body) noexcept {
  if (error != nullptr) *error = nullptr;
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    return fail_current(error);
  }
}

}  // namespace onemodel::c_api
