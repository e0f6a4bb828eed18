#pragma once

#include <nanobind/nanobind.h>

namespace onemodel::python {

void bind_ctc(nanobind::module_& m);

}  // namespace onemodel::python
