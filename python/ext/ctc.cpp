// CTC decoding on NumPy scores (include/onemodel/ctc.hpp, spec/ctc.md); python/src/onemodel/ctc.py
// gives the results their Python shape.
#include "ctc.hpp"

#include <cstddef>
#include <span>
#include <vector>

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include "onemodel/ctc.hpp"

namespace nb = nanobind;

namespace onemodel::python {
namespace {

using Scores = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

std::span<const float> values(const Scores& s) { return {s.data(), s.shape(0) * s.shape(1)}; }

// (runs [(label, first step, last step, confidence)], confidence, step probabilities).
nb::tuple greedy(const Scores& scores, int kind, std::size_t blank) {
  ctc::GreedyResult r;
  {
    nb::gil_scoped_release release;
    r = ctc::greedy_decode(values(scores), scores.shape(0), scores.shape(1), static_cast<ctc::ScoreKind>(kind), blank);
  }
  nb::list runs;
  for (const ctc::CtcRun& run : r.runs) runs.append(nb::make_tuple(run.label, run.first_step, run.last_step, run.confidence));
  nb::list steps;
  for (float p : r.step_probabilities) steps.append(p);
  return nb::make_tuple(runs, r.confidence, steps);
}

// [(labels, log probability, confidence)], best first.
nb::list beam(const Scores& scores, int kind, std::size_t blank, std::size_t beam_width, std::size_t top_n) {
  std::vector<ctc::BeamHypothesis> found;
  {
    nb::gil_scoped_release release;
    found = ctc::beam_search(values(scores), scores.shape(0), scores.shape(1),
                             {static_cast<ctc::ScoreKind>(kind), blank, beam_width, top_n});
  }
  nb::list out;
  for (const ctc::BeamHypothesis& h : found) {
    nb::list labels;
    for (std::int32_t l : h.labels) labels.append(l);
    out.append(nb::make_tuple(labels, h.log_probability, h.confidence));
  }
  return out;
}

}  // namespace

void bind_ctc(nb::module_& m) {
  m.def("ctc_greedy", &greedy, nb::arg("scores").noconvert(), nb::arg("kind"), nb::arg("blank"));
  m.def("ctc_beam", &beam, nb::arg("scores").noconvert(), nb::arg("kind"), nb::arg("blank"), nb::arg("beam_width"),
        nb::arg("top_n"));
}

}  // namespace onemodel::python
