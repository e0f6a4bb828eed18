// CTC decoding (spec/ctc.md): per-step class scores of a recogniser or speech model turned into
// label sequences. Not an ONNX operator: a helper for the program that reads a model's output.
//
// Scores are row-major [steps, classes] (a batch is [batch, steps, classes]), either logits or
// natural-log probabilities. Every function is pure and gives the same bits on every machine:
// greedy probabilities come from the exact-mode softmax and exponential, the beam search from the
// deterministic double-precision exp and ln of spec/ctc.md section 4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel::ctc {

enum class ScoreKind { Logits, LogProbabilities };

// spec/ctc.md section 6.
enum class CtcErrorKind {
  InvalidArgument,  // a shape, blank index, beam width or result count out of range
  InvalidScores,    // a score the decoder refuses (NaN, +inf, a logit row without a finite maximum)
  TooLarge,         // the search could create more prefixes than its limit
};

const char* to_string(CtcErrorKind kind) noexcept;

class CtcError : public std::runtime_error {
 public:
  CtcError(CtcErrorKind kind, std::string message);
  CtcErrorKind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }

 private:
  CtcErrorKind kind_;
  std::string message_;
};

// One emitted label: the steps [first_step, last_step] of its run and the largest probability of
// its class over the run (spec/ctc.md section 2, "Confidences").
struct CtcRun {
  std::int32_t label = 0;
  std::int32_t first_step = 0;
  std::int32_t last_step = 0;
  float confidence = 0.0f;
};

struct GreedyResult {
  std::vector<CtcRun> runs;                // one per emitted label, in order
  float confidence = 0.0f;                 // mean of the run confidences; 0 when nothing is emitted
  std::vector<float> step_probabilities;   // p(t) of each step's best class, blank included

  std::vector<std::int32_t> labels() const;
};

// Greedy (best-path) decoding of one sequence. `scores` holds steps * classes values.
GreedyResult greedy_decode(std::span<const float> scores, std::size_t steps, std::size_t classes,
                           ScoreKind kind = ScoreKind::Logits, std::size_t blank = 0);

// The same into caller-owned room, allocating nothing: `runs` needs room for `steps` runs and
// `step_probabilities` for `steps` values (or is empty, then not written). Returns the number of
// runs written; `confidence` receives the sequence confidence.
std::size_t greedy_decode_into(std::span<const float> scores, std::size_t steps, std::size_t classes, ScoreKind kind,
                               std::size_t blank, std::span<CtcRun> runs, std::span<float> step_probabilities,
                               float& confidence);

// Greedy decoding of a batch [batch, steps, classes].
std::vector<GreedyResult> greedy_decode_batch(std::span<const float> scores, std::size_t batch, std::size_t steps,
                                              std::size_t classes, ScoreKind kind = ScoreKind::Logits,
                                              std::size_t blank = 0);

struct BeamOptions {
  ScoreKind kind = ScoreKind::Logits;
  std::size_t blank = 0;
  std::size_t beam_width = 16;  // in [1, 4096]
  std::size_t top_n = 1;        // in [1, beam_width]
};

struct BeamHypothesis {
  std::vector<std::int32_t> labels;
  double log_probability = 0.0;  // logadd(pb, pnb) of the prefix after the last step
  double confidence = 0.0;       // exp(log_probability / labels), 0 for the empty text
};

// Prefix beam search (spec/ctc.md section 3) of one sequence: the best `top_n` texts, best first.
std::vector<BeamHypothesis> beam_search(std::span<const float> scores, std::size_t steps, std::size_t classes,
                                        const BeamOptions& options = {});

// The deterministic double-precision functions of spec/ctc.md section 4 (exposed for tests and
// for callers who combine beam scores themselves).
double deterministic_exp(double x) noexcept;
double deterministic_ln(double x) noexcept;
double logadd(double a, double b) noexcept;

}  // namespace onemodel::ctc

#pragma GCC visibility pop
