// A name as `onemodel run` prints it (docs/command-line.md, "run"): printable ASCII other than
// the space and `\` as it is, `\` as `\\`, every other byte (control characters, the space,
// DEL, bytes of multi-byte UTF-8 characters) as `\xHH` with two lowercase hex digits. A name from
// the model can then neither end the line nor add a field to it, so it cannot forge an output
// line; an ordinary name prints unchanged.
#pragma once

#include <string>
#include <string_view>

namespace onemodel::cli {

std::string escaped_name(std::string_view name);

}  // namespace onemodel::cli
