// The one list of known differences (spec/conformance.md section 4): each entry is one output of
// one backend case, the bound within which it may miss the recorded data, and the reason with the
// spec section that defines our answer. `onemodel conformance` hands a case's entries to
// conformance::run_case, which checks the bound on the computed values; any other failure of a
// listed case is `fail`, and a listed case that passes is `pass`.
#pragma once

#include <span>
#include <string_view>

#include "core/conformance/known_difference.hpp"

namespace onemodel::cli {

// The entries of `case_name` (a case folder's name, e.g. "test_dft_inverse"); empty when none.
std::span<const conformance::KnownDifference> known_differences_of(std::string_view case_name) noexcept;

// Every entry, for tests and reports.
std::span<const conformance::KnownDifference> all_known_differences() noexcept;

}  // namespace onemodel::cli
