// The commands that run models: `onemodel run` (cmd_run.cpp) and `onemodel conformance`
// (cmd_conformance.cpp), with their shared option parsing and session-error printing
// (spec/errors.md section 4; spec/conformance.md).
#pragma once

#include <ostream>
#include <string>

#include "onemodel/session.hpp"
#include "tools/cli/commands.hpp"

namespace onemodel::cli {

int command_run(const Args& args, std::ostream& out);
int command_conformance(const Args& args, std::ostream& out);
// `onemodel profile`: time per node and per operator type over warm runs (cmd_profile.cpp).
int command_profile(const Args& args, std::ostream& out);
// `onemodel bench`: the bar's timing procedure on one model (cmd_bench.cpp).
int command_bench(const Args& args, std::ostream& out);
// `onemodel check`: outputs against ONNX Runtime's reference directories (cmd_check.cpp).
int command_check(const Args& args, std::ostream& out);

// "--engine optimized|reference", "--mode fast|exact", "--threads N" (0 to 256), "--memory-limit
// BYTES" (digits with an optional K, M or G suffix, binary), "--weights float32|binary16|bfloat16"
// (WeightStorage, spec/session.md section 9) into `options`.
// Returns false when `arg` is none of them; throws UsageError for a bad or missing value.
bool parse_session_option(const std::string& command, const Args& args, std::size_t& k, SessionOptions& options);

// "binary16" or "bfloat16" (and "float32", WeightStorage::Original, when allowed); UsageError
// naming `command` otherwise.
WeightStorage parse_weight_storage(const std::string& command, const std::string& value, bool allow_float32);

// spec/errors.md section 4: `<Kind>: <message>`, `  at node <name>`, one `  operator <op>` line
// per operator. Returns exit_status_of(kind) (exit_status.hpp).
int report_session_error(const SessionError& error, std::ostream& err);

}  // namespace onemodel::cli
