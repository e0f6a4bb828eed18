// What `onemodel run` and `onemodel profile` share about their inputs (docs/command-line.md):
// `--input NAME=FILE.npy`, the tensors read from the files as the session declares them, and the
// report of a file that cannot be used.
#pragma once

#include <iostream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/conformance/npy.hpp"
#include "onemodel/session.hpp"
#include "tools/cli/run_commands.hpp"

namespace onemodel::cli {

// "NAME=FILE.npy" into (name, path); the name ends at the first '='. UsageError naming `command`.
std::pair<std::string, std::string> parse_input_arg(const std::string& command, const std::string& value);

// A uint16 file for a bfloat16 input is taken as the raw bits: NumPy has no bfloat16 type, and
// `run` writes bfloat16 outputs the same way (core/conformance/npy.hpp).
Tensor as_declared(const Tensor& tensor, const Session& session, const std::string& name);

// A whole number in [low, high] for `option` of `command` (--runs, --reps, ...); UsageError
// "<command>: <option> takes <low> to <high>, not '<value>'" otherwise.
int parse_count_arg(const std::string& command, const std::string& option, const std::string& value, int low,
                    int high);

// spec/errors.md section 4.1: an input file a running command cannot use is an input error,
// `InvalidInput: <message>` on one line. Returns the exit status.
int report_input_file_error(const conformance::NpyError& error, std::ostream& err);

// Runs a command's body and reports the errors of a running command (a session error, an input
// file it cannot use) as spec/errors.md section 4 says; other errors go on to main.
template <class Body>
int with_run_errors(std::ostream& out, Body&& body) {
  try {
    return body();
  } catch (const SessionError& e) {
    out.flush();
    return report_session_error(e, std::cerr);
  } catch (const conformance::NpyError& e) {
    out.flush();
    return report_input_file_error(e, std::cerr);
  }
}

}  // namespace onemodel::cli
