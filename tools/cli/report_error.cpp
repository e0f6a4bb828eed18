#include "tools/cli/report_error.hpp"

#include <new>
#include <string>

#include "onemodel/error.hpp"
#include "onemodel/session_error.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

// spec/errors.md section 4: the second line names the field path, the offset and the input,
// each only when known, in that order.
std::string where_line(const ModelError& e) {
  std::string where;
  if (!e.field_path().empty()) where += "at " + e.field_path();
  if (e.offset()) where += (where.empty() ? "" : ", ") + std::string("offset ") + std::to_string(*e.offset());
  if (!e.input_name().empty()) where += (where.empty() ? "" : ", ") + std::string("in ") + e.input_name();
  return where;
}

// One line: a message with a line break would break the one-line rule.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

int report_error(std::exception_ptr error, std::ostream& err) {
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    err << "Usage: " << one_line(e.what()) << "\n";
    err << "  run `onemodel --help` for the commands and their arguments\n";
    return kExitUsage;
  } catch (const ModelError& e) {
    err << to_string(e.kind()) << ": " << one_line(e.message()) << "\n";
    const std::string where = where_line(e);
    if (!where.empty()) err << "  " << one_line(where) << "\n";
    return kExitModelFile;
  } catch (const SessionError& e) {
    // spec/errors.md section 4: the node, then one line per operator involved.
    err << to_string(e.kind()) << ": " << one_line(e.message()) << "\n";
    if (!e.node_name().empty()) err << "  at node " << one_line(e.node_name()) << "\n";
    for (const std::string& op : e.operators()) err << "  operator " << one_line(op) << "\n";
    return exit_status_of(e.kind());
  } catch (const std::bad_alloc&) {
    err << "Internal: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    err << "Internal: " << one_line(e.what()) << "\n";
    return kExitInternal;
  } catch (...) {
    err << "Internal: unknown error\n";
    return kExitInternal;
  }
}

}  // namespace onemodel::cli
