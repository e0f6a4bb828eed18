// Greedy (best-path) CTC decoding, spec/ctc.md section 2 (source ctc.md "Greedy", Graves et al.
// 2006 section 3.1). Allocates nothing in greedy_decode_into: the exact softmax's sum is streamed,
// only the best class's probability is needed.
#include <cstdint>
#include <limits>

#include "core/ctc/ctc_checks.hpp"
#include "onemodel/ctc.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"
#include "reference/ops/canonical_sum.hpp"

namespace onemodel::ctc {
namespace {

float canonical(float v) noexcept { return v != v ? exact::detail::canonical_nan() : v; }

// Rule 1: the largest score, the lowest index on ties; a NaN is never chosen over a number (a row
// of NaN alone gives class 0).
std::size_t best_class(const float* row, std::size_t classes) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < classes; ++j) {
    const float v = row[j];
    if (v != v) continue;
    if (row[best] != row[best] || v > row[best]) best = j;
  }
  return best;
}

// Rule 3, logits: y[best] of the exact softmax (kernels-attention.md "Softmax"): m the maximum
// with NaN ignored, e[j] = expNonPositive(x[j] - m), l the 16-partial sum of the e[j] in
// increasing j, y = e / l, a NaN stored canonical. A row holding NaN or +inf, or only -inf, gives
// NaN as the softmax does.
float softmax_at(const float* row, std::size_t classes, std::size_t best) noexcept {
  float m = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < classes; ++j) {
    if (row[j] > m) m = row[j];
  }
  CanonicalSum16<float> sum;
  float e_best = 0.0f;
  for (std::size_t j = 0; j < classes; ++j) {
    const float e = exact::exp_non_positive(row[j] - m);
    if (j == best) e_best = e;
    sum.add(e);
  }
  return canonical(e_best / sum.result());
}

// Rule 3, log-probabilities: exp(value) with the exact exponential, capped at 1 (NaN stays NaN).
float probability_of_log(float value) noexcept {
  const float p = exact::exp(value);
  return p > 1.0f ? 1.0f : p;
}

}  // namespace

std::size_t greedy_decode_into(std::span<const float> scores, std::size_t steps, std::size_t classes, ScoreKind kind,
                               std::size_t blank, std::span<CtcRun> runs, std::span<float> step_probabilities,
                               float& confidence) {
  detail::check_scores_shape(scores, 1, steps, classes, blank);
  if (runs.size() < steps) {
    detail::fail(CtcErrorKind::InvalidArgument,
                 "room for " + std::to_string(runs.size()) + " runs, " + std::to_string(steps) + " steps need " +
                     std::to_string(steps));
  }
  if (!step_probabilities.empty() && step_probabilities.size() < steps) {
    detail::fail(CtcErrorKind::InvalidArgument, "room for " + std::to_string(step_probabilities.size()) +
                                                    " step probabilities, " + std::to_string(steps) + " needed");
  }
  std::size_t count = 0;
  std::size_t previous = classes;  // no class before the first step
  for (std::size_t t = 0; t < steps; ++t) {
    const float* row = scores.data() + t * classes;
    const std::size_t best = best_class(row, classes);
    const float p = kind == ScoreKind::Logits ? softmax_at(row, classes, best) : probability_of_log(row[best]);
    if (!step_probabilities.empty()) step_probabilities[t] = p;
    // Rule 2: consecutive equal classes are one run; a blank ends a run and emits nothing.
    if (best != blank) {
      if (best == previous) {
        CtcRun& run = runs[count - 1];
        run.last_step = static_cast<std::int32_t>(t);
        // The largest p(t) of the run: a number wins over NaN, NaN only when every step is NaN.
        if (p > run.confidence || run.confidence != run.confidence) run.confidence = p;
      } else {
        runs[count++] = CtcRun{static_cast<std::int32_t>(best), static_cast<std::int32_t>(t),
                               static_cast<std::int32_t>(t), p};
      }
    }
    previous = best;
  }
  // The mean of the run confidences: a float32 sum in order, then one division; 0 when empty.
  float sum = 0.0f;
  for (std::size_t i = 0; i < count; ++i) sum = sum + runs[i].confidence;
  confidence = count == 0 ? 0.0f : canonical(sum / static_cast<float>(count));
  return count;
}

GreedyResult greedy_decode(std::span<const float> scores, std::size_t steps, std::size_t classes, ScoreKind kind,
                           std::size_t blank) {
  detail::check_scores_shape(scores, 1, steps, classes, blank);
  GreedyResult result;
  result.runs.resize(steps);
  result.step_probabilities.resize(steps);
  const std::size_t count =
      greedy_decode_into(scores, steps, classes, kind, blank, result.runs, result.step_probabilities, result.confidence);
  result.runs.resize(count);
  return result;
}

std::vector<GreedyResult> greedy_decode_batch(std::span<const float> scores, std::size_t batch, std::size_t steps,
                                              std::size_t classes, ScoreKind kind, std::size_t blank) {
  detail::check_scores_shape(scores, batch, steps, classes, blank);
  std::vector<GreedyResult> out;
  out.reserve(batch);
  for (std::size_t b = 0; b < batch; ++b) {
    out.push_back(greedy_decode(scores.subspan(b * steps * classes, steps * classes), steps, classes, kind, blank));
  }
  return out;
}

}  // namespace onemodel::ctc
