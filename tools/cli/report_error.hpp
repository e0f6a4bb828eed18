// Printing an error the way spec/errors.md section 4 says: `<Kind>: <message>` on one line, then,
// when known, one line saying where. Returns the exit status of the error's family.
#pragma once

#include <exception>
#include <ostream>

namespace onemodel::cli {

int report_error(std::exception_ptr error, std::ostream& err);

}  // namespace onemodel::cli
