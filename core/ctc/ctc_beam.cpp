// CTC prefix beam search, spec/ctc.md section 3 (source ctc.md "Prefix beam search"; Graves et
// al. 2006, Hannun et al. 2014 Algorithm 1, no language model), on the deterministic double exp,
// ln and logadd of ctc_math.cpp, so the result is the same on every platform.
//
// The order of every floating-point step is fixed here (spec/ctc.md section 3.2): the beam is
// walked best first; each prefix gives its blank, then its repeat, then its extensions in
// increasing class; contributions to one prefix are folded with logadd in that order, starting
// from -inf. Prefixes are nodes of a tree numbered in creation order (a prefix pruned and reached
// again keeps its number), and the ranking breaks equal scores by that number.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "core/ctc/ctc_checks.hpp"
#include "onemodel/ctc.hpp"

namespace onemodel::ctc {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxBeamWidth = 4096;
constexpr std::uint64_t kMaxPrefixes = std::uint64_t{1} << 24;
constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

struct PrefixNode {
  std::uint32_t parent;
  std::int32_t label;  // -1 for the empty prefix
  std::uint32_t length;
};

struct Entry {
  std::uint32_t node;
  double pb;   // log probability of the alignments giving the prefix and ending in blank
  double pnb;  // ... ending in a non-blank
  double score;
};

// Rejects what the search cannot take (spec/ctc.md section 3.3): NaN anywhere, +inf anywhere, and
// a logit row without a finite maximum (its log-softmax is undefined). Log-probabilities of -inf
// are probability 0 and allowed, but not a whole row of them.
void check_values(std::span<const float> scores, std::size_t steps, std::size_t classes) {
  for (std::size_t t = 0; t < steps; ++t) {
    bool any_finite = false;
    for (std::size_t j = 0; j < classes; ++j) {
      const float v = scores[t * classes + j];
      const std::string where = "step " + std::to_string(t) + ", class " + std::to_string(j);
      if (v != v) detail::fail(CtcErrorKind::InvalidScores, "NaN score at " + where);
      if (v == std::numeric_limits<float>::infinity()) {
        detail::fail(CtcErrorKind::InvalidScores, "+inf score at " + where);
      }
      if (v != -std::numeric_limits<float>::infinity()) any_finite = true;
    }
    if (!any_finite) {
      detail::fail(CtcErrorKind::InvalidScores,
                   "every score of step " + std::to_string(t) + " is -inf (no class has a probability)");
    }
  }
}

// lp(j) of one step: for logits (z_j - max) - ln(S), S = sum of exp(z_i - max) in increasing i,
// all in double after widening (so the subtractions are exact); log-probabilities as given.
void log_probabilities(const float* row, std::size_t classes, ScoreKind kind, std::vector<double>& lp) {
  if (kind == ScoreKind::LogProbabilities) {
    for (std::size_t j = 0; j < classes; ++j) lp[j] = static_cast<double>(row[j]);
    return;
  }
  double max = kMinusInf;
  for (std::size_t j = 0; j < classes; ++j) max = std::max(max, static_cast<double>(row[j]));
  double sum = 0.0;
  for (std::size_t j = 0; j < classes; ++j) sum = sum + deterministic_exp(static_cast<double>(row[j]) - max);
  const double log_sum = deterministic_ln(sum);
  for (std::size_t j = 0; j < classes; ++j) lp[j] = (static_cast<double>(row[j]) - max) - log_sum;
}

class Search {
 public:
  Search(std::size_t classes, std::size_t blank) : classes_(classes), blank_(blank) {
    nodes_.push_back(PrefixNode{0, -1, 0});
    slot_of_.push_back(kNoSlot);
    beam_.push_back(Entry{0, 0.0, kMinusInf, 0.0});
  }

  void step(const std::vector<double>& lp) {
    next_.clear();
    for (const Entry& e : beam_) {
      const std::int32_t last = nodes_[e.node].label;
      const double total = logadd(e.pb, e.pnb);
      add(e.node, /*blank_end=*/true, total + lp[blank_]);
      if (last >= 0) add(e.node, /*blank_end=*/false, e.pnb + lp[static_cast<std::size_t>(last)]);
      for (std::size_t j = 0; j < classes_; ++j) {
        if (j == blank_) continue;
        const double from = static_cast<std::int32_t>(j) == last ? e.pb : total;
        const double contribution = from + lp[j];
        if (contribution == kMinusInf) continue;  // probability 0: not added, no prefix made
        add(child(e.node, static_cast<std::int32_t>(j)), /*blank_end=*/false, contribution);
      }
    }
    for (Entry& e : next_) {
      slot_of_[e.node] = kNoSlot;
      e.score = logadd(e.pb, e.pnb);
    }
    std::sort(next_.begin(), next_.end(), [](const Entry& a, const Entry& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.node < b.node;  // creation order
    });
    if (next_.size() > width_) next_.resize(width_);
    beam_.swap(next_);
  }

  void set_width(std::size_t width) { width_ = width; }
  const std::vector<Entry>& beam() const { return beam_; }

  std::vector<std::int32_t> labels_of(std::uint32_t node) const {
    std::vector<std::int32_t> out(nodes_[node].length);
    for (std::uint32_t n = node; n != 0; n = nodes_[n].parent) out[nodes_[n].length - 1] = nodes_[n].label;
    return out;
  }

 private:
  void add(std::uint32_t node, bool blank_end, double contribution) {
    if (contribution == kMinusInf) return;
    std::uint32_t slot = slot_of_[node];
    if (slot == kNoSlot) {
      slot = static_cast<std::uint32_t>(next_.size());
      slot_of_[node] = slot;
      next_.push_back(Entry{node, kMinusInf, kMinusInf, 0.0});
    }
    Entry& e = next_[slot];
    if (blank_end) {
      e.pb = logadd(e.pb, contribution);
    } else {
      e.pnb = logadd(e.pnb, contribution);
    }
  }

  std::uint32_t child(std::uint32_t parent, std::int32_t label) {
    const std::uint64_t key = static_cast<std::uint64_t>(parent) * classes_ + static_cast<std::uint64_t>(label);
    auto [it, inserted] = children_.try_emplace(key, static_cast<std::uint32_t>(nodes_.size()));
    if (inserted) {
      nodes_.push_back(PrefixNode{parent, label, nodes_[parent].length + 1});
      slot_of_.push_back(kNoSlot);
    }
    return it->second;
  }

  std::size_t classes_;
  std::size_t blank_;
  std::size_t width_ = 1;
  std::vector<PrefixNode> nodes_;
  std::vector<std::uint32_t> slot_of_;  // node -> its entry in next_ during a step
  std::unordered_map<std::uint64_t, std::uint32_t> children_;
  std::vector<Entry> beam_;
  std::vector<Entry> next_;
};

}  // namespace

std::vector<BeamHypothesis> beam_search(std::span<const float> scores, std::size_t steps, std::size_t classes,
                                        const BeamOptions& options) {
  detail::check_scores_shape(scores, 1, steps, classes, options.blank);
  if (options.beam_width < 1 || options.beam_width > kMaxBeamWidth) {
    detail::fail(CtcErrorKind::InvalidArgument,
                 "beam width " + std::to_string(options.beam_width) + " is outside [1, 4096]");
  }
  if (options.top_n < 1 || options.top_n > options.beam_width) {
    detail::fail(CtcErrorKind::InvalidArgument, "top_n " + std::to_string(options.top_n) +
                                                    " is outside [1, beam width " +
                                                    std::to_string(options.beam_width) + "]");
  }
  // The most prefixes the search can create: steps * beamWidth * (classes - 1) + 1 <= 2^24, the
  // product checked step by step against the limit so it cannot overflow.
  std::uint64_t bound = classes - 1;
  for (const std::uint64_t factor : {static_cast<std::uint64_t>(steps), static_cast<std::uint64_t>(options.beam_width)}) {
    if (bound != 0 && factor > (kMaxPrefixes - 1) / bound) {
      bound = kMaxPrefixes;
      break;
    }
    bound *= factor;
  }
  if (bound + 1 > kMaxPrefixes) {
    detail::fail(CtcErrorKind::TooLarge, "steps " + std::to_string(steps) + " x beam width " +
                                             std::to_string(options.beam_width) + " x (classes - 1) " +
                                             std::to_string(classes - 1) + " + 1 exceeds 2^24 prefixes");
  }
  check_values(scores, steps, classes);

  Search search(classes, options.blank);
  search.set_width(options.beam_width);
  std::vector<double> lp(classes);
  for (std::size_t t = 0; t < steps; ++t) {
    log_probabilities(scores.data() + t * classes, classes, options.kind, lp);
    search.step(lp);
  }
  const std::vector<Entry>& beam = search.beam();
  std::vector<BeamHypothesis> out;
  const std::size_t n = std::min(options.top_n, beam.size());
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    BeamHypothesis h;
    h.labels = search.labels_of(beam[i].node);
    h.log_probability = logadd(beam[i].pb, beam[i].pnb);
    h.confidence =
        h.labels.empty() ? 0.0 : deterministic_exp(h.log_probability / static_cast<double>(h.labels.size()));
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace onemodel::ctc
