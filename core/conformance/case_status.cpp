#include "core/conformance/case_status.hpp"

namespace onemodel::conformance {

std::string_view to_string(CaseStatus status) noexcept {
  switch (status) {
    case CaseStatus::Pass: return "pass";
    case CaseStatus::Fail: return "fail";
    case CaseStatus::UnsupportedOp: return "unsupported-op";
    case CaseStatus::UnsupportedType: return "unsupported-type";
    case CaseStatus::NotExact: return "not-exact";
    case CaseStatus::KnownDiff: return "known-diff";
  }
  return "fail";
}

std::optional<CaseStatus> parse_case_status(std::string_view text) noexcept {
  for (CaseStatus status : {CaseStatus::Pass, CaseStatus::Fail, CaseStatus::UnsupportedOp, CaseStatus::UnsupportedType,
                            CaseStatus::NotExact, CaseStatus::KnownDiff}) {
    if (to_string(status) == text) return status;
  }
  return std::nullopt;
}

CaseStatus status_of_session_error(SessionErrorKind kind, bool exact_mode) noexcept {
  switch (kind) {
    case SessionErrorKind::UnsupportedOperator: return CaseStatus::UnsupportedOp;
    case SessionErrorKind::Unsupported: return CaseStatus::UnsupportedType;
    case SessionErrorKind::ExactModeUnavailable: return exact_mode ? CaseStatus::NotExact : CaseStatus::Fail;
    case SessionErrorKind::InvalidModel:
    case SessionErrorKind::InvalidInput:
    case SessionErrorKind::Disposed:
    case SessionErrorKind::ResourceExhausted:
    case SessionErrorKind::Cancelled: return CaseStatus::Fail;
  }
  return CaseStatus::Fail;
}

}  // namespace onemodel::conformance
