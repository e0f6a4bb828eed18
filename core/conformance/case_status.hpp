// The status of one conformance case (spec/conformance.md section 4, from the method section of
// conformance.md) and how errors map onto it.
#pragma once

#include <optional>
#include <string_view>

#include "onemodel/session_error.hpp"

namespace onemodel::conformance {

enum class CaseStatus { Pass, Fail, UnsupportedOp, UnsupportedType, NotExact, KnownDiff };

// "pass", "fail", "unsupported-op", "unsupported-type", "not-exact", "known-diff".
std::string_view to_string(CaseStatus status) noexcept;
std::optional<CaseStatus> parse_case_status(std::string_view text) noexcept;

// spec/conformance.md section 4: UnsupportedOperator -> unsupported-op, Unsupported ->
// unsupported-type, ExactModeUnavailable -> not-exact (exact mode only; in fast mode it is a
// defect), everything else (InvalidModel, InvalidInput, Disposed) -> fail.
CaseStatus status_of_session_error(SessionErrorKind kind, bool exact_mode) noexcept;

}  // namespace onemodel::conformance
