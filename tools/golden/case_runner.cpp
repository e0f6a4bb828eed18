#include "tools/golden/case_runner.hpp"

#include <exception>

#include "onemodel/session_error.hpp"
#include "tools/golden/tensor_hash.hpp"

namespace onemodel::golden {
namespace {

void fill_all(CaseResult& result, const std::vector<std::string>& names, const std::string& hash) {
  result.lines.clear();
  for (const std::string& name : names) result.lines.push_back({name, hash});
}

}  // namespace

CaseResult run_case(const GoldenCase& golden_case, SessionOptions options) {
  options.mode = ExecutionMode::Exact;
  CaseResult result;
  std::vector<std::string> names;
  try {
    GoldenGraph graph = golden_case.build();
    for (const IrValueInfo& out : graph.model.graph.outputs) names.push_back(golden_case.name + "/" + out.name);
    try {
      Session session = Session::create(std::move(graph.model), options);
      result.kernel_path = session.kernel_path();
      const std::vector<Tensor> outputs = session.run(graph.feeds);
      for (std::size_t i = 0; i < outputs.size() && i < names.size(); ++i) {
        result.lines.push_back({names[i], tensor_hash(outputs[i])});
      }
      if (outputs.size() != names.size()) result.error = "output count differs from the graph's outputs";
    } catch (const SessionError& e) {
      if (e.kind() != SessionErrorKind::ExactModeUnavailable) throw;
      fill_all(result, names, not_exact_marker());
    }
  } catch (const std::exception& e) {
    result.error = e.what();
    fill_all(result, names.empty() ? std::vector<std::string>{golden_case.name + "/*"} : names, "error");
  }
  return result;
}

}  // namespace onemodel::golden
