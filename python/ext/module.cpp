// onemodel._core, the extension module under the onemodel package (issue 16, docs/api.md "Python").
#include <nanobind/nanobind.h>

#include "ctc.hpp"
#include "errors.hpp"
#include "session.hpp"

NB_MODULE(_core, m) {
  m.doc() = "OneModel's C++ library; use the onemodel package, not this module";
  onemodel::python::bind_errors(m);
  onemodel::python::bind_session(m);
  onemodel::python::bind_ctc(m);
}
