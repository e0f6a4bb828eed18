// The commands of `onemodel`, one file each (tools/cli/command_<name>.cpp). Each takes the
// arguments after its name, writes its result to `out`, and returns an exit status; errors are
// thrown (UsageError, ModelError) and printed by main (report_error.cpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace onemodel::cli {

using Args = std::vector<std::string>;

int command_info(const Args& args, std::ostream& out);
int command_dump(const Args& args, std::ostream& out);
int command_convert(const Args& args, std::ostream& out);
// `onemodel operators`: the operator table as TSV.
int command_operators(const Args& args, std::ostream& out);
// `onemodel help [COMMAND]`.
int command_help(const Args& args, std::ostream& out);

// The text of `onemodel --version`.
const char* version_text();

}  // namespace onemodel::cli
