// The library's errors as Python exceptions (docs/api.md "Python", error kinds): each C++ error
// kind raises the class of that name from onemodel._errors, with the text "<Kind>: <message>".
#pragma once

#include <nanobind/nanobind.h>

namespace onemodel::python {

void bind_errors(nanobind::module_& m);

}  // namespace onemodel::python
