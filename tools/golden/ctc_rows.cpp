#include "tools/golden/ctc_rows.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/util/sha256.hpp"
#include "onemodel/ctc.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

struct Digest {
  Sha256 sha;
  template <class T>
  void add(T value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    // Little-endian regardless of the host (every supported host is little-endian; this keeps
    // the definition explicit).
    sha.update(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes), sizeof(T)));
  }
  std::string hex() { return to_hex(sha.finish()); }
};

struct CtcCase {
  const char* name;
  std::size_t steps, classes, blank, width, top_n;
  bool log_probabilities;
  bool specials;  // greedy only: NaN, infinities among the scores
};

// Sizes from one step to a recogniser-like strip (40 steps of 97 classes), blanks first, last and
// inside, narrow and wide beams.
constexpr CtcCase kCases[] = {
    {"tiny", 1, 2, 0, 2, 2, false, false},          {"short", 5, 4, 0, 8, 3, false, false},
    {"blank_last", 12, 6, 5, 10, 4, false, false},  {"blank_inside", 9, 5, 2, 3, 2, false, false},
    {"logprobs", 16, 8, 0, 16, 5, true, false},     {"strip", 40, 97, 0, 12, 3, false, false},
    {"long_narrow", 120, 11, 0, 2, 2, false, false}, {"specials", 30, 7, 0, 4, 1, false, true},
};

std::vector<float> scores_for(const CtcCase& c, std::uint64_t seed) {
  Prng prng(seed);
  std::vector<float> s(c.steps * c.classes);
  for (float& v : s) v = prng.symmetric() * 3.0f;  // multiples of 3/1024 in [-6, 6]: exact
  if (c.log_probabilities) {
    // Log-probabilities are taken as given (spec/ctc.md section 3.1): values below 0, shifted
    // exactly, are enough to exercise the path without library math.
    for (std::size_t t = 0; t < c.steps; ++t) {
      for (std::size_t j = 0; j < c.classes; ++j) s[t * c.classes + j] = s[t * c.classes + j] - 6.0f;
    }
  }
  if (c.specials) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (std::size_t t = 0; t < c.steps; t += 3) s[t * c.classes + prng.below(static_cast<std::uint32_t>(c.classes))] = nan;
    for (std::size_t t = 1; t < c.steps; t += 5) s[t * c.classes + prng.below(static_cast<std::uint32_t>(c.classes))] = -inf;
    s[7 * c.classes + 2] = inf;
  }
  return s;
}

}  // namespace

std::vector<HashLine> ctc_lines() {
  std::vector<HashLine> lines;
  std::uint64_t seed = 0xC7C0;
  for (const CtcCase& c : kCases) {
    const std::vector<float> s = scores_for(c, seed++);
    const ctc::ScoreKind kind = c.log_probabilities ? ctc::ScoreKind::LogProbabilities : ctc::ScoreKind::Logits;
    {
      const ctc::GreedyResult r = ctc::greedy_decode(s, c.steps, c.classes, kind, c.blank);
      Digest d;
      d.add(static_cast<std::uint64_t>(r.runs.size()));
      for (const ctc::CtcRun& run : r.runs) {
        d.add(run.label);
        d.add(run.first_step);
        d.add(run.last_step);
        d.add(run.confidence);
      }
      d.add(r.confidence);
      for (const float p : r.step_probabilities) d.add(p);
      lines.push_back(HashLine{std::string("ctc/") + c.name + "/greedy", d.hex()});
    }
    if (!c.specials) {
      const auto hyps = ctc::beam_search(s, c.steps, c.classes, {kind, c.blank, c.width, c.top_n});
      Digest d;
      d.add(static_cast<std::uint64_t>(hyps.size()));
      for (const ctc::BeamHypothesis& h : hyps) {
        d.add(static_cast<std::uint64_t>(h.labels.size()));
        for (const std::int32_t l : h.labels) d.add(l);
        d.add(h.log_probability);
        d.add(h.confidence);
      }
      lines.push_back(HashLine{std::string("ctc/") + c.name + "/beam", d.hex()});
    }
  }
  return lines;
}

}  // namespace onemodel::golden
