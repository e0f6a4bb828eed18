// MelWeightMatrix (opset 17): spec/ops/spectral.md section 5, after ops-coverage.md
// "MelWeightMatrix". num_mel_bins + 2 edge points on the mel scale mel(f) = 2595 log10(1 + f / 700)
// from the lower edge in steps of (mel(upper) - mel(lower)) / (num_mel_bins + 2) (the divisor of
// ONNX's reference implementation, which the backend data follows), back to hertz, then to bins
// floor((dft_length + 1) f / sample_rate), all in binary64 with the library's exact binary64 log
// and exp (spec/exact-transcendentals.md section 15), in the order section 5 states; filter i
// rises from edge i to edge i + 1 and falls to edge i + 2, peak 1. Output
// [floor(dft_length / 2) + 1, num_mel_bins] in output_datatype (float32 default, float64, float16,
// bfloat16). Exact (issue 17): every step is a stated binary64 operation.
#include <cmath>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/spectral_inputs.hpp"

namespace onemodel {
namespace {

using MelTypes = ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>;

struct MelParameters {
  std::int64_t mel_bins = 0, dft_length = 0, sample_rate = 0;
  double lower = 0.0, upper = 0.0;
};

double float_scalar(const NodeInfo& node, const Tensor& t, const char* what) {
  if (t.element_count() != 1) node.fail_invalid(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  double v = 0.0;
  ew::dispatch(t.dtype(), ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>{}, [&](auto tag) {
    using E = decltype(tag);
    v = static_cast<double>(E::load(t.contiguous().template data<typename E::storage>()[0]));
  });
  return v;
}

MelParameters read_parameters(const NodeInfo& node, const Tensor& bins, const Tensor& length, const Tensor& rate,
                              const Tensor& lower, const Tensor& upper) {
  MelParameters p;
  p.mel_bins = spectral::int_scalar(node, bins, "num_mel_bins");
  p.dft_length = spectral::int_scalar(node, length, "dft_length");
  p.sample_rate = spectral::int_scalar(node, rate, "sample_rate");
  p.lower = float_scalar(node, lower, "lower_edge_hertz");
  p.upper = float_scalar(node, upper, "upper_edge_hertz");
  if (p.mel_bins < 1 || p.mel_bins > kMaxElements) node.fail_invalid("num_mel_bins " + std::to_string(p.mel_bins) + " is not positive");
  if (p.dft_length < 1 || p.dft_length > kMaxElements) node.fail_invalid("dft_length " + std::to_string(p.dft_length) + " is not positive");
  if (p.sample_rate < 1) node.fail_invalid("sample_rate " + std::to_string(p.sample_rate) + " is not positive");
  if (!(p.lower >= 0.0) || !(p.upper >= p.lower) || !std::isfinite(p.upper)) {
    node.fail_invalid("the edges need 0 <= lower_edge_hertz <= upper_edge_hertz, finite");
  }
  return p;
}

// spec/ops/spectral.md section 5: mel(f) = (2595 * log_f64(1 + f / 700)) / ln10, each operation
// rounded in binary64 in that order, ln10 = log_f64(10).
double mel_of(double hertz, double ln10) noexcept { return 2595.0 * exact::log_f64(1.0 + hertz / 700.0) / ln10; }

// The edge bins, each checked to fall inside the spectrogram's bins.
std::vector<std::int64_t> edge_bins(const NodeInfo& node, const MelParameters& p) {
  const double ln10 = exact::log_f64(10.0);
  const double low_mel = mel_of(p.lower, ln10);
  const double high_mel = mel_of(p.upper, ln10);
  const double step = (high_mel - low_mel) / static_cast<double>(p.mel_bins + 2);
  const std::int64_t spectrogram_bins = p.dft_length / 2 + 1;
  std::vector<std::int64_t> edges(static_cast<std::size_t>(p.mel_bins + 2));
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const double mel = static_cast<double>(i) * step + low_mel;
    const double hertz = 700.0 * (exact::exp_f64(mel / 2595.0 * ln10) - 1.0);
    const double bin = std::floor(static_cast<double>(p.dft_length + 1) * hertz / static_cast<double>(p.sample_rate));
    if (!(bin >= 0.0) || bin >= static_cast<double>(spectrogram_bins)) {
      node.fail_invalid("edge " + std::to_string(i) + " falls on bin " + std::to_string(bin) + ", outside the " +
                        std::to_string(spectrogram_bins) + " bins of dft_length " + std::to_string(p.dft_length) +
                        " (upper_edge_hertz above sample_rate / 2?)");
    }
    edges[i] = static_cast<std::int64_t>(bin);
  }
  return edges;
}

class MelWeightMatrix final : public OpKernel {
 public:
  explicit MelWeightMatrix(const NodeInfo& node) : type_(spectral::output_datatype(node)) {}

  void infer(InferContext& context) const override {
    const Tensor* v[5];
    for (std::size_t i = 0; i < 5; ++i) {
      if ((v[i] = shape_ops::value_or_defer(context, i)) == nullptr) return;
    }
    const MelParameters p = read_parameters(context.node(), *v[0], *v[1], *v[2], *v[3], *v[4]);
    edge_bins(context.node(), p);
    context.set_output(0, type_, shape_ops::make_shape(context.node(), {p.dft_length / 2 + 1, p.mel_bins}));
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const MelParameters p = read_parameters(node, context.input(0), context.input(1), context.input(2),
                                            context.input(3), context.input(4));
    const std::vector<std::int64_t> edges = edge_bins(node, p);
    const std::int64_t rows = p.dft_length / 2 + 1;
    std::vector<double> m(static_cast<std::size_t>(rows * p.mel_bins), 0.0);
    auto at = [&](std::int64_t row, std::int64_t column) -> double& {
      return m[static_cast<std::size_t>(row * p.mel_bins + column)];
    };
    for (std::int64_t i = 0; i < p.mel_bins; ++i) {
      const std::int64_t left = edges[static_cast<std::size_t>(i)];
      const std::int64_t center = edges[static_cast<std::size_t>(i + 1)];
      const std::int64_t right = edges[static_cast<std::size_t>(i + 2)];
      if (center == left) {
        at(center, i) = 1.0;
      } else {
        for (std::int64_t j = left; j <= center; ++j) at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
      }
      // The falling side starts at the center (which it sets to 1 again) and stops before `right`.
      for (std::int64_t j = center; j < right; ++j) at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
    const Tensor& out = context.output(0);
    ew::dispatch(type_, MelTypes{}, [&](auto tag) {
      using E = decltype(tag);
      auto o = out.mutable_data<typename E::storage>();
      for (std::size_t i = 0; i < m.size(); ++i) o[i] = E::store(static_cast<typename E::value>(m[i]));
    });
  }

 private:
  DType type_;
};

}  // namespace

std::unique_ptr<OpKernel> make_mel_weight_matrix(const NodeInfo& node) { return std::make_unique<MelWeightMatrix>(node); }

}  // namespace onemodel
