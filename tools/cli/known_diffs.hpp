// The one list of known differences (spec/conformance.md section 4): backend cases whose failure
// is understood, each with its reason. Such a case counts as known-diff, neither pass nor fail,
// and only when it fails; a listed case that passes is reported as pass.
#pragma once

#include <string>
#include <string_view>

namespace onemodel::cli {

// The reason when `case_name` (a case folder's name, e.g. "test_dft_inverse") is listed, else
// empty.
std::string_view known_diff_reason(std::string_view case_name) noexcept;

}  // namespace onemodel::cli
