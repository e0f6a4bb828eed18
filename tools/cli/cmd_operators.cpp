// `onemodel operators`: the operator table as TSV (spec/operators.tsv is this output, checked by
// a test).
#include <ostream>

#include "reference/ops/operator_listing.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {

int command_operators(const Args& args, std::ostream& out) {
  if (!args.empty()) throw UsageError("operators takes no arguments");
  out << operators_tsv();
  return kExitOk;
}

}  // namespace onemodel::cli
