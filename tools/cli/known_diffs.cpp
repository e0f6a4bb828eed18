#include "tools/cli/known_diffs.hpp"

#include <algorithm>
#include <array>
#include <iterator>

namespace onemodel::cli {
namespace {

using conformance::DiffBound;
using conformance::KnownDifference;

// Resize with coordinate_transformation_mode = align_corners maps output j to
// j * (in - 1) / (out - 1) with the rounded-down output size (spec/ops/products-conv.md, Resize;
// spec-source ops-conv.md "Resize", the Open note on these two cases). ONNX Runtime 1.31.1 gives
// the values below, and so does that formula: the input rows are 1..4 (1..16 for the 4 x 4
// cubic case), and a cubic or linear kernel reproduces a linear ramp, so every output is the
// ramp at the mapped coordinate (0 and 3; 0, 1.5 and 3 on both axes).
constexpr std::array<double, 2> kResizeLinearAlignCorners = {1.0, 4.0};
constexpr std::array<double, 9> kResizeCubicAlignCorners = {1.0, 2.5, 4.0, 7.0, 8.5, 10.0, 13.0, 14.5, 16.0};

// The support of a Bernoulli draw and of a bool mask (spec/ops/random.md section 12).
constexpr std::array<double, 2> kZeroOrOne = {0.0, 1.0};
constexpr const char* kBernoulliReason =
    "a random draw: the recorded data is numpy's draw (the ONNX text: implementations need not give the same "
    "values, even with a seed); ours is the counter-based generator of spec/ops/random.md (sections 1-4, 9), so "
    "only the support {0, 1} is checked here and the law by tests/unit/random_ops_test.cpp";
constexpr const char* kDropoutReason =
    "a random dropping: the recorded data is numpy's draw; ours is spec/ops/random.md section 11, so only that each "
    "element is dropped (0) or the scaled input (equal to the recorded value where both kept it) is checked here, "
    "and the law by tests/unit/random_ops_test.cpp";
constexpr const char* kMaskReason =
    "a random dropping's mask (spec/ops/random.md section 11): only its support {false, true} is checked here";

// Entries sorted by case name; one entry per output that may miss. Add one only with a bound
// measured on the case and a reason a reader can check against the cited section.
constexpr KnownDifference kKnownDiffs[] = {
    {"test_bernoulli", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_bernoulli_double", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_bernoulli_double_expanded", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_bernoulli_expanded", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_bernoulli_seed", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_bernoulli_seed_expanded", "y", DiffBound::DrawSupport, 0.0, kZeroOrOne, kBernoulliReason},
    {"test_dft_inverse", "y", DiffBound::MaxAbs, 2e-7, {},
     "the expected data carries up to 1.9e-7 of float32 FFT noise on elements near zero, above the case's 1e-7 "
     "absolute tolerance (spec-source conformance.md, Summary and 'Every case that does not pass'; "
     "spec/conformance.md section 4)"},
    {"test_dft_inverse_opset19", "y", DiffBound::MaxAbs, 2e-7, {},
     "the expected data carries up to 1.9e-7 of float32 FFT noise on elements near zero, above the case's 1e-7 "
     "absolute tolerance (spec-source conformance.md, Summary and 'Every case that does not pass'; "
     "spec/conformance.md section 4)"},
    {"test_resize_downsample_scales_cubic_align_corners", "Y", DiffBound::Values, 0.0, kResizeCubicAlignCorners,
     "Resize align_corners divides by the rounded-down output size minus 1, as ONNX Runtime 1.31.1 does; the backend "
     "data divides by the unrounded in * scale (spec-source ops-conv.md 'Resize', Open note; "
     "spec/ops/products-conv.md, Resize)"},
    {"test_resize_downsample_scales_linear_align_corners", "Y", DiffBound::Values, 0.0, kResizeLinearAlignCorners,
     "Resize align_corners divides by the rounded-down output size minus 1, as ONNX Runtime 1.31.1 does; the backend "
     "data divides by the unrounded in * scale (spec-source ops-conv.md 'Resize', Open note; "
     "spec/ops/products-conv.md, Resize)"},
    {"test_training_dropout", "y", DiffBound::DrawMasked, 0.0, {}, kDropoutReason},
    {"test_training_dropout_default", "y", DiffBound::DrawMasked, 0.0, {}, kDropoutReason},
    {"test_training_dropout_default_mask", "y", DiffBound::DrawMasked, 0.0, {}, kDropoutReason},
    {"test_training_dropout_default_mask", "z", DiffBound::DrawSupport, 0.0, kZeroOrOne, kMaskReason},
    {"test_training_dropout_mask", "y", DiffBound::DrawMasked, 0.0, {}, kDropoutReason},
    {"test_training_dropout_mask", "z", DiffBound::DrawSupport, 0.0, kZeroOrOne, kMaskReason},
};

}  // namespace

std::span<const KnownDifference> known_differences_of(std::string_view case_name) noexcept {
  const auto* first = std::find_if(std::begin(kKnownDiffs), std::end(kKnownDiffs),
                                   [&](const KnownDifference& k) { return k.case_name == case_name; });
  const auto* last = std::find_if(first, std::end(kKnownDiffs),
                                  [&](const KnownDifference& k) { return k.case_name != case_name; });
  return {first, last};
}

std::span<const KnownDifference> all_known_differences() noexcept { return kKnownDiffs; }

}  // namespace onemodel::cli
