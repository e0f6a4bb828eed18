// CTC decoding (include/onemodel/ctc.hpp, spec/ctc.md). Expected values come from three
// independent places: cases worked by hand from the page's rules, the double-precision Python
// decoder tools/oracles/ctc_reference.py (tests/data/ctc/cases.json), and an enumeration of every
// alignment written here (the beam search with a wide enough beam must find its best text).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json/json_reader.hpp"
#include "onemodel/ctc.hpp"

// Counts heap allocations while `g_counting` is set.
#include "tests/support/counting_new.hpp"

namespace onemodel::ctc {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::uint32_t bits(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// ---- Greedy, by hand from spec/ctc.md section 2 ----

TEST(CtcGreedy, MergesRunsDropsBlankAndKeepsLabelsSplitByABlank) {
  // classes: 0 = blank, 1 = a, 2 = b. Best path: a a _ a b b _ -> "a a b" (the blank splits the a's).
  const float big = 5.0f;
  std::vector<float> s = {
      0, big, 0,  //
      0, big, 0,  //
      big, 0, 0,  //
      0, big, 0,  //
      0, 0, big,  //
      0, 0, big,  //
      big, 0, 0,
  };
  const GreedyResult r = greedy_decode(s, 7, 3);
  ASSERT_EQ(r.labels(), (std::vector<std::int32_t>{1, 1, 2}));
  EXPECT_EQ(r.runs[0].first_step, 0);
  EXPECT_EQ(r.runs[0].last_step, 1);
  EXPECT_EQ(r.runs[1].first_step, 3);
  EXPECT_EQ(r.runs[1].last_step, 3);
  EXPECT_EQ(r.runs[2].first_step, 4);
  EXPECT_EQ(r.runs[2].last_step, 5);
  ASSERT_EQ(r.step_probabilities.size(), 7u);
}

TEST(CtcGreedy, TiesGoToTheLowestIndexAndNanIsNeverChosenOverANumber) {
  // Step 0: classes 1 and 2 tie -> 1. Step 1: NaN at 1, 2 is the largest number -> 2.
  // Step 2: NaN first, then -inf and -1: a number beats NaN, -1 > -inf -> 2.
  std::vector<float> s = {0, 3, 3, 0, kNan, 1, kNan, -kInf, -1};
  const GreedyResult r = greedy_decode(s, 3, 3);
  EXPECT_EQ(r.labels(), (std::vector<std::int32_t>{1, 2}));
  // A row of NaN alone gives class 0 (here the blank): nothing emitted.
  std::vector<float> all_nan = {kNan, kNan, kNan};
  EXPECT_TRUE(greedy_decode(all_nan, 1, 3).runs.empty());
}

TEST(CtcGreedy, ProbabilitiesAreTheExactSoftmaxOfTheBestClass) {
  // Two equal logits of three: p = 1 / (1 + 1 + e^-inf) = 0.5 exactly.
  std::vector<float> s = {-kInf, 2, 2};
  const GreedyResult r = greedy_decode(s, 1, 3);
  EXPECT_EQ(r.step_probabilities[0], 0.5f);
  EXPECT_EQ(r.runs[0].confidence, 0.5f);
  EXPECT_EQ(r.confidence, 0.5f);
  // A row with NaN (or +inf) has a NaN softmax: canonical NaN.
  std::vector<float> n = {0, kNan, 1};
  EXPECT_EQ(bits(greedy_decode(n, 1, 3).step_probabilities[0]), 0x7FC00000u);
  std::vector<float> inf = {0, kInf, 1};
  EXPECT_EQ(bits(greedy_decode(inf, 1, 3).step_probabilities[0]), 0x7FC00000u);
}

TEST(CtcGreedy, RunConfidenceIsTheLargestOfTheRunAndSequenceTheMean) {
  // Log-probabilities: p(t) = exp(value) capped at 1. Run of class 1 over steps 0..2 with
  // log p = ln 0.25, ln 0.5, ln 0.125 (exact exp of the float32 logs is within a few ulps of
  // the powers of two): its confidence is the largest, the step-1 value. Then class 2 once with
  // a value above 0, capped at 1. Sequence confidence = (c1 + 1) / 2 in float32.
  const float l25 = std::log(0.25f), l5 = std::log(0.5f), l125 = std::log(0.125f);
  std::vector<float> s = {-9, l25, -9, -9, l5, -9, -9, l125, -9, -9, -9, 0.5f};
  const GreedyResult r = greedy_decode(s, 4, 3, ScoreKind::LogProbabilities);
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].confidence, r.step_probabilities[1]);
  EXPECT_NEAR(r.runs[0].confidence, 0.5f, 1e-6f);
  EXPECT_EQ(r.runs[1].confidence, 1.0f);
  EXPECT_EQ(r.confidence, (r.runs[0].confidence + 1.0f) / 2.0f);
  // Nothing emitted: confidence 0.
  std::vector<float> blank_only = {0, -9, -9};
  EXPECT_EQ(greedy_decode(blank_only, 1, 3, ScoreKind::LogProbabilities).confidence, 0.0f);
}

TEST(CtcGreedy, ANumberWinsOverNanInARunConfidence) {
  // Class 1 best in two steps; the first row has a NaN elsewhere (softmax NaN), the second not.
  std::vector<float> s = {0, 5, kNan, 0, 5, 1};
  const GreedyResult r = greedy_decode(s, 2, 3);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_TRUE(std::isnan(r.step_probabilities[0]));
  EXPECT_FALSE(std::isnan(r.runs[0].confidence));
  EXPECT_EQ(r.runs[0].confidence, r.step_probabilities[1]);
}

TEST(CtcGreedy, TheBlankIsConfigurable) {
  std::vector<float> s = {0, 0, 5, 5, 0, 0};  // best: 2 then 0
  EXPECT_EQ(greedy_decode(s, 2, 3, ScoreKind::Logits, 2).labels(), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(greedy_decode(s, 2, 3, ScoreKind::Logits, 0).labels(), (std::vector<std::int32_t>{2}));
}

TEST(CtcGreedy, TheSpanEntryPointAllocatesNothing) {
  std::vector<float> s(50 * 7);
  std::mt19937 rng(3);
  std::normal_distribution<float> d(0.0f, 2.0f);
  for (float& v : s) v = d(rng);
  std::vector<CtcRun> runs(50);
  std::vector<float> probs(50);
  float confidence = -1.0f;
  g_allocations = 0;
  g_counting = true;
  const std::size_t n = greedy_decode_into(s, 50, 7, ScoreKind::Logits, 0, runs, probs, confidence);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  const GreedyResult r = greedy_decode(s, 50, 7);
  ASSERT_EQ(n, r.runs.size());
  EXPECT_EQ(confidence, r.confidence);
}

TEST(CtcGreedy, BatchDecodesEachItem) {
  std::vector<float> s = {0, 5, 0, 0, 0, 5};  // [2, 1, 3]
  const auto r = greedy_decode_batch(s, 2, 1, 3);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].labels(), (std::vector<std::int32_t>{1}));
  EXPECT_EQ(r[1].labels(), (std::vector<std::int32_t>{2}));
}

// ---- Errors (spec/ctc.md section 6) ----

template <class F>
void expect_error(CtcErrorKind kind, const std::string& fragment, F&& f) {
  try {
    f();
    ADD_FAILURE() << "no error, expected " << to_string(kind);
  } catch (const CtcError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(std::string(to_string(kind)) + ": ", 0), 0u) << e.what();
  }
}

TEST(CtcErrors, EveryBadArgumentIsRefusedWithItsKind) {
  std::vector<float> s(6, 0.0f);
  expect_error(CtcErrorKind::InvalidArgument, "classes must be", [&] { greedy_decode({}, 0, 0); });
  expect_error(CtcErrorKind::InvalidArgument, "blank class 3", [&] { greedy_decode(s, 2, 3, ScoreKind::Logits, 3); });
  expect_error(CtcErrorKind::InvalidArgument, "needs 9", [&] { greedy_decode(s, 3, 3); });
  const std::size_t big = 0x7FFFFFFF;  // fits a 32-bit index; big * big * 8 overflows 64 bits
  expect_error(CtcErrorKind::InvalidArgument, "batch * steps * classes overflows",
               [&] { greedy_decode_batch(s, 8, big, big); });
  expect_error(CtcErrorKind::InvalidArgument, "32-bit step range", [&] { greedy_decode(s, big + 1, 3); });
  std::vector<CtcRun> small(1);
  float c = 0;
  expect_error(CtcErrorKind::InvalidArgument, "room for 1 runs",
               [&] { greedy_decode_into(s, 2, 3, ScoreKind::Logits, 0, small, {}, c); });
  expect_error(CtcErrorKind::InvalidArgument, "beam width 0", [&] { beam_search(s, 2, 3, {.beam_width = 0}); });
  expect_error(CtcErrorKind::InvalidArgument, "beam width 4097", [&] { beam_search(s, 2, 3, {.beam_width = 4097}); });
  expect_error(CtcErrorKind::InvalidArgument, "top_n 5", [&] { beam_search(s, 2, 3, {.beam_width = 4, .top_n = 5}); });
  expect_error(CtcErrorKind::InvalidArgument, "top_n 0", [&] { beam_search(s, 2, 3, {.top_n = 0}); });
}

TEST(CtcErrors, TheBeamSearchRefusesNanInfAndRowsWithoutProbability) {
  std::vector<float> s = {0, 1, 2, 0, kNan, 2};
  expect_error(CtcErrorKind::InvalidScores, "NaN score at step 1, class 1", [&] { beam_search(s, 2, 3); });
  s[4] = kInf;
  expect_error(CtcErrorKind::InvalidScores, "+inf score at step 1, class 1", [&] { beam_search(s, 2, 3); });
  std::vector<float> dead = {0, 1, 2, -kInf, -kInf, -kInf};
  expect_error(CtcErrorKind::InvalidScores, "step 1 is -inf", [&] { beam_search(dead, 2, 3); });
  expect_error(CtcErrorKind::InvalidScores, "step 1 is -inf",
               [&] { beam_search(dead, 2, 3, {.kind = ScoreKind::LogProbabilities}); });
}

TEST(CtcErrors, ThePrefixLimitIsCheckedBeforeAnythingIsAllocated) {
  // steps * width * (classes - 1) + 1 <= 2^24: 4096 * 4096 * 1 + 1 is one over.
  std::vector<float> s(4096 * 2, 0.0f);
  expect_error(CtcErrorKind::TooLarge, "exceeds 2^24", [&] { beam_search(s, 4096, 2, {.beam_width = 4096}); });
  // One step fewer fits the limit (the search then runs; only the check is asserted here).
  std::vector<float> fits(4 * 2, 0.0f);
  EXPECT_NO_THROW(beam_search(fits, 4, 2, {.beam_width = 4096}));
}

// ---- Deterministic exp, ln and logadd (spec/ctc.md section 4) ----

TEST(CtcMath, ExpAndLnAreWithinTheirBoundAgainstTheLibrary) {
  // Relative error below 1e-15 on the ranges the search uses; the platform's exp and log are the
  // independent values (a few tenths of an ulp), so the bound allows 1e-15 plus their error.
  double worst_exp = 0, worst_ln = 0;
  for (int i = 0; i <= 200000; ++i) {
    const double x = -699.0 + 1398.0 * i / 200000.0;
    const double want = std::exp(x);
    worst_exp = std::max(worst_exp, std::abs(deterministic_exp(x) - want) / want);
  }
  for (int i = 1; i <= 200000; ++i) {
    const double x = std::ldexp(1.0 + i / 200000.0, (i % 400) - 200);
    const double want = std::log(x);
    if (want == 0) continue;
    worst_ln = std::max(worst_ln, std::abs(deterministic_ln(x) - want) / std::abs(want));
  }
  EXPECT_LT(worst_exp, 1.2e-15);
  EXPECT_LT(worst_ln, 1.2e-15);
}

TEST(CtcMath, SpecialValuesFollowThePage) {
  EXPECT_EQ(deterministic_exp(-700.0), 0.0);
  EXPECT_EQ(deterministic_exp(-1e300), 0.0);
  EXPECT_EQ(deterministic_exp(std::numeric_limits<double>::quiet_NaN()), 0.0);
  EXPECT_EQ(deterministic_exp(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(deterministic_exp(701.0), deterministic_exp(700.0));  // clamped to 700
  EXPECT_EQ(deterministic_exp(0.0), 1.0);
  EXPECT_EQ(deterministic_ln(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(deterministic_ln(1.0), 0.0);
  EXPECT_TRUE(std::isnan(deterministic_ln(-1.0)));
  EXPECT_TRUE(std::isnan(deterministic_ln(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(deterministic_ln(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(deterministic_ln(2.0), 0.6931471805599453);  // e = 1, m = 1: e * ln2 exactly
  const double sub = std::numeric_limits<double>::denorm_min() * 12345.0;
  EXPECT_NEAR(deterministic_ln(sub), std::log(sub), 1e-15 * std::abs(std::log(sub)));
  const double ninf = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(logadd(ninf, ninf), ninf);
  EXPECT_EQ(logadd(-3.0, ninf), -3.0);
  EXPECT_EQ(logadd(0.0, -41.0), 0.0);  // b - a < -40
  EXPECT_NEAR(logadd(std::log(0.25), std::log(0.5)), std::log(0.75), 1e-15);
  EXPECT_EQ(logadd(-1.0, -2.0), logadd(-2.0, -1.0));
}

// ---- Beam search against an enumeration of every alignment ----

// The best text over the sum of all alignments (classes^steps paths), logadd in double with the
// platform's exp and log: independent of the search and of its exp/ln.
struct Best {
  std::vector<std::int32_t> labels;
  double log_probability;
  std::size_t distinct;
};

Best enumerate_alignments(const std::vector<double>& lp, std::size_t steps, std::size_t classes, std::size_t blank) {
  std::map<std::vector<std::int32_t>, double> totals;
  std::vector<std::size_t> path(steps, 0);
  const auto add = [](double a, double b) {
    if (a < b) std::swap(a, b);
    if (b == -std::numeric_limits<double>::infinity()) return a;
    return a + std::log1p(std::exp(b - a));
  };
  while (true) {
    double sum = 0;
    std::vector<std::int32_t> text;
    std::size_t previous = classes;
    for (std::size_t t = 0; t < steps; ++t) {
      sum += lp[t * classes + path[t]];
      if (path[t] != previous && path[t] != blank) text.push_back(static_cast<std::int32_t>(path[t]));
      previous = path[t];
    }
    auto [it, inserted] = totals.try_emplace(text, -std::numeric_limits<double>::infinity());
    it->second = add(it->second, sum);
    std::size_t t = 0;
    while (t < steps && ++path[t] == classes) path[t++] = 0;
    if (t == steps) break;
  }
  Best best{{}, -std::numeric_limits<double>::infinity(), totals.size()};
  for (const auto& [text, value] : totals) {
    if (value > best.log_probability) best = Best{text, value, totals.size()};
  }
  return best;
}

TEST(CtcBeam, AWideBeamFindsTheBestTextOfAllAlignments) {
  std::mt19937 rng(20261203);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t steps = 1 + rng() % 6;
    const std::size_t classes = 2 + rng() % 3;
    const std::size_t blank = rng() % classes;
    std::normal_distribution<float> d(0.0f, 1.5f);
    std::vector<float> s(steps * classes);
    for (float& v : s) v = d(rng);
    // log-softmax of each row in double with the platform's functions: the enumeration's lp.
    std::vector<double> lp(s.size());
    for (std::size_t t = 0; t < steps; ++t) {
      double m = -1e300, sum = 0;
      for (std::size_t j = 0; j < classes; ++j) m = std::max(m, double(s[t * classes + j]));
      for (std::size_t j = 0; j < classes; ++j) sum += std::exp(double(s[t * classes + j]) - m);
      for (std::size_t j = 0; j < classes; ++j) lp[t * classes + j] = (double(s[t * classes + j]) - m) - std::log(sum);
    }
    const Best want = enumerate_alignments(lp, steps, classes, blank);
    ASSERT_LE(want.distinct, 4096u);
    const auto got = beam_search(s, steps, classes, {.blank = blank, .beam_width = 4096, .top_n = 1});
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].labels, want.labels) << "trial " << trial;
    EXPECT_NEAR(got[0].log_probability, want.log_probability, 1e-9) << "trial " << trial;
    ++compared;
  }
  EXPECT_EQ(compared, 60);
}

TEST(CtcBeam, ConfidenceIsTheGeometricMeanPerLabel) {
  std::vector<float> s = {0.1f, 2.0f, -1.0f, 0.3f, -0.5f, 1.5f};
  const auto r = beam_search(s, 2, 3, {.beam_width = 8, .top_n = 3});
  ASSERT_EQ(r.size(), 3u);
  for (const BeamHypothesis& h : r) {
    if (h.labels.empty()) {
      EXPECT_EQ(h.confidence, 0.0);
    } else {
      EXPECT_NEAR(h.confidence, std::exp(h.log_probability / double(h.labels.size())), 1e-15);
    }
  }
  EXPECT_GE(r[0].log_probability, r[1].log_probability);
  EXPECT_GE(r[1].log_probability, r[2].log_probability);
}

TEST(CtcBeam, NoStepsGivesTheEmptyTextWithProbabilityOne) {
  const auto r = beam_search({}, 0, 3, {.beam_width = 4, .top_n = 4});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].labels.empty());
  EXPECT_EQ(r[0].log_probability, 0.0);
  EXPECT_EQ(r[0].confidence, 0.0);
}

TEST(CtcBeam, EqualScoresKeepCreationOrder) {
  // Two steps of uniform logits over blank, a, b: "a" and "b" have equal scores; "a" was created
  // first (class order), so it ranks first; likewise "ab" before "ba".
  std::vector<float> s(6, 0.0f);
  const auto r = beam_search(s, 2, 3, {.beam_width = 16, .top_n = 16});
  std::vector<std::vector<std::int32_t>> texts;
  for (const auto& h : r) texts.push_back(h.labels);
  // Probabilities: "a" = P(aa)+P(a_)+P(_a) = 3/9, same for "b"; "" = 1/9; "ab", "ba" = 1/9 each.
  ASSERT_EQ(texts.size(), 5u);
  EXPECT_EQ(texts[0], (std::vector<std::int32_t>{1}));
  EXPECT_EQ(texts[1], (std::vector<std::int32_t>{2}));
  EXPECT_NEAR(r[0].log_probability, std::log(3.0 / 9.0), 1e-12);
  EXPECT_NEAR(r[2].log_probability, std::log(1.0 / 9.0), 1e-12);
}

// ---- The Python decoder's cases (tests/data/ctc/cases.json) ----

// tests/data/ctc/cases.json, written by tools/oracles/ctc_reference.py.
JsonValue load_cases() {
  const auto path = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "tests/data/ctc/cases.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return parse_json(text.str());
}

double number(const JsonValue& v) {
  if (v.kind == JsonValue::Kind::String) {
    if (v.text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (v.text == "inf") return std::numeric_limits<double>::infinity();
    if (v.text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::strtod(v.text.c_str(), nullptr);
}

void expect_close(double got, double want, double tolerance, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
  } else {
    EXPECT_NEAR(got, want, tolerance) << what;
  }
}

TEST(CtcCases, MatchThePythonDecoder) {
  const JsonValue root = load_cases();
  const JsonValue* cases = root.find("cases");
  ASSERT_NE(cases, nullptr);
  int greedy_checked = 0, beams_checked = 0, exhaustive_checked = 0;
  for (const JsonValue& c : cases->items) {
    const std::string name = c.find("name")->text;
    const std::size_t steps = static_cast<std::size_t>(c.find("steps")->integer);
    const std::size_t classes = static_cast<std::size_t>(c.find("classes")->integer);
    const std::size_t blank = static_cast<std::size_t>(c.find("blank")->integer);
    const ScoreKind kind = c.find("kind")->text == "logits" ? ScoreKind::Logits : ScoreKind::LogProbabilities;
    std::vector<float> s;
    for (const JsonValue& row : c.find("scores")->items) {
      for (const JsonValue& v : row.items) s.push_back(static_cast<float>(number(v)));
    }
    ASSERT_EQ(s.size(), steps * classes) << name;

    const JsonValue& g = *c.find("greedy");
    const GreedyResult r = greedy_decode(s, steps, classes, kind, blank);
    const auto& want_runs = g.find("runs")->items;
    ASSERT_EQ(r.runs.size(), want_runs.size()) << name;
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      EXPECT_EQ(r.runs[i].label, want_runs[i].find("label")->integer) << name;
      EXPECT_EQ(r.runs[i].first_step, want_runs[i].find("first")->integer) << name;
      EXPECT_EQ(r.runs[i].last_step, want_runs[i].find("last")->integer) << name;
      expect_close(r.runs[i].confidence, number(*want_runs[i].find("confidence")), 2e-6, name + " run");
    }
    expect_close(r.confidence, number(*g.find("confidence")), 2e-6, name + " confidence");
    const auto& want_steps = g.find("step_probabilities")->items;
    ASSERT_EQ(r.step_probabilities.size(), want_steps.size()) << name;
    for (std::size_t t = 0; t < steps; ++t) {
      expect_close(r.step_probabilities[t], number(want_steps[t]), 2e-6, name + " step " + std::to_string(t));
    }
    ++greedy_checked;

    if (const JsonValue* beams = c.find("beams")) {
      for (const JsonValue& b : beams->items) {
        const BeamOptions options{kind, blank, static_cast<std::size_t>(b.find("width")->integer),
                                  static_cast<std::size_t>(b.find("top_n")->integer)};
        const auto got = beam_search(s, steps, classes, options);
        const auto& want = b.find("result")->items;
        ASSERT_EQ(got.size(), want.size()) << name;
        for (std::size_t i = 0; i < got.size(); ++i) {
          std::vector<std::int32_t> labels;
          for (const JsonValue& l : want[i].find("labels")->items) labels.push_back(static_cast<std::int32_t>(l.integer));
          EXPECT_EQ(got[i].labels, labels) << name << " width " << options.beam_width << " rank " << i;
          EXPECT_NEAR(got[i].log_probability, number(*want[i].find("log_probability")), 1e-9) << name;
          expect_close(got[i].confidence, number(*want[i].find("confidence")), 1e-9, name + " beam confidence");
        }
        ++beams_checked;
      }
    }
    if (const JsonValue* ex = c.find("exhaustive"); ex != nullptr && ex->find("distinct_texts")->integer <= 4096) {
      const auto got = beam_search(s, steps, classes, {kind, blank, 4096, 1});
      std::vector<std::int32_t> labels;
      for (const JsonValue& l : ex->find("labels")->items) labels.push_back(static_cast<std::int32_t>(l.integer));
      EXPECT_EQ(got[0].labels, labels) << name;
      EXPECT_NEAR(got[0].log_probability, number(*ex->find("log_probability")), 1e-9) << name;
      ++exhaustive_checked;
    }
  }
  EXPECT_EQ(greedy_checked, 41);
  EXPECT_EQ(beams_checked, 32 * 3);
  EXPECT_EQ(exhaustive_checked, 30);
}

double from_hex(const std::string& hex) {
  const std::uint64_t u = std::strtoull(hex.c_str(), nullptr, 16);
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

std::string to_hex(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(u));
  return buffer;
}

// The page's exp and ln written again in Python (tools/oracles/ctc_reference.py, det_exp/det_ln):
// bit for bit, the property every platform must have (spec/ctc.md section 4).
TEST(CtcCases, ExpAndLnGiveThePythonBitsOfThePage) {
  const JsonValue root = load_cases();
  const JsonValue* points = root.find("math");
  ASSERT_NE(points, nullptr);
  int exps = 0, lns = 0;
  for (const JsonValue& p : points->items) {
    const double x = from_hex(p.find("x")->text);
    EXPECT_EQ(to_hex(deterministic_exp(x)), p.find("exp")->text) << "exp of " << p.find("x")->text;
    ++exps;
    if (const JsonValue* ln = p.find("ln")) {
      EXPECT_EQ(to_hex(deterministic_ln(x)), ln->text) << "ln of " << p.find("x")->text;
      ++lns;
    }
  }
  EXPECT_EQ(exps, 64);
  EXPECT_GE(lns, 50);
}

}  // namespace
}  // namespace onemodel::ctc
