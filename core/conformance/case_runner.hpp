// Running one backend-test case (spec/conformance.md section 2, from the method section of
// conformance.md): a folder with model.onnx and test_data_set_*/{input,output}_N.pb. The model is
// imported, a session is created with the caller's options, every data set is run and every
// output compared (compare.hpp). Nothing thrown inside a case escapes: each error becomes a status.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/conformance/case_status.hpp"
#include "core/conformance/known_difference.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"

namespace onemodel::conformance {

struct CaseResult {
  CaseStatus status = CaseStatus::Fail;
  std::string reason;                  // empty for pass
  std::vector<std::string> operators;  // "Type" or "domain.Type", subgraphs included, sorted, once each
  std::int64_t opset = 0;              // the default domain's imported version, 0 when not imported
  int data_sets = 0;                   // data sets that ran and matched (or missed only as known)
};

// A folder holding model.onnx.
bool is_case_folder(const std::filesystem::path& folder);

// The operators and default-domain opset of an imported model, as CaseResult reports them.
std::vector<std::string> model_operators(const IrModel& model);
std::int64_t default_opset(const IrModel& model);

// Never throws for anything the case contains; errors become Fail with the message.
// Each of `twins` (other engines or thread counts, DESIGN.md section 1, differential gating) runs
// every data set whose run produced outputs, whether or not they matched the recorded data, and
// must give the same bits as `options`' session: element types, shapes and bytes of every output;
// a difference, or a twin that throws, is Fail naming the twin and the first differing element.
// `known` holds this case's known differences (spec/conformance.md section 4): an output that
// misses the recorded data is covered only by an entry naming that output whose bound holds;
// the case is then KnownDiff (when nothing else fails), with each covered output in the reason.
CaseResult run_case(const std::filesystem::path& folder, const SessionOptions& options,
                    std::span<const SessionOptions> twins = {}, std::span<const KnownDifference> known = {});

}  // namespace onemodel::conformance
