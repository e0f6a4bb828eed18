// Argument checks shared by the greedy decoder and the beam search (spec/ctc.md section 6): every
// size and index is checked before anything is read or allocated.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "onemodel/ctc.hpp"

namespace onemodel::ctc::detail {

// Checks that `scores` holds exactly batch * steps * classes values (the product checked for
// overflow), that classes >= 1, that steps and classes fit a 32-bit label or step index, and
// that blank < classes.
void check_scores_shape(std::span<const float> scores, std::size_t batch, std::size_t steps, std::size_t classes,
                        std::size_t blank);

[[noreturn]] void fail(CtcErrorKind kind, const std::string& message);

}  // namespace onemodel::ctc::detail
