// STFT (opset 17): spec/ops/spectral.md section 4. signal [batch, signal_length, 1 or 2],
// frame_step and frame_length int32/int64 scalars, window 1-D of the signal's type. Frame f
// starts at f * frame_step; frames = floor((signal_length - frame_length) / frame_step) + 1; each
// windowed frame is transformed by the DFT of section 2 (length frame_length), onesided (default
// 1, real input only) keeping bins 0..floor(frame_length / 2). Output [batch, frames, bins, 2].
// Exact (the twiddles of spectral_math.hpp, sums in a stated order).
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/spectral_inputs.hpp"
#include "reference/ops/spectral_math.hpp"

namespace onemodel {
namespace {

using StftTypes = ew::Types<ew::F32, ew::F64>;

struct StftGeometry {
  std::int64_t batch = 0, signal_length = 0, step = 0, frame_length = 0, frames = 0, bins = 0;
  bool complex_in = false;
};

class Stft final : public OpKernel {
 public:
  explicit Stft(const NodeInfo& node) : onesided_(node.get_int("onesided", 1)) {
    if (onesided_ != 0 && onesided_ != 1) node.fail_invalid("onesided must be 0 or 1, got " + std::to_string(onesided_));
  }

  void infer(InferContext& context) const override {
    ew::require(context, 0, StftTypes{});
    if (context.has_input(2) && context.input_type(2) != context.input_type(0)) {
      context.node().fail_invalid("the window's type differs from the signal's");
    }
    const Tensor* step = shape_ops::value_or_defer(context, 1);
    const Tensor* length = nullptr;
    if (context.has_input(3) && (length = shape_ops::value_or_defer(context, 3)) == nullptr) return;
    if (step == nullptr) return;
    const Shape* window = context.has_input(2) ? &context.input_shape(2) : nullptr;
    const StftGeometry g = geometry(context.node(), context.input_shape(0), *step, window, length);
    context.set_output(0, context.input_type(0),
                       shape_ops::make_shape(context.node(), {g.batch, g.frames, g.bins, 2}));
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor signal = context.input(0).contiguous();
    const bool has_window = context.has_input(2);
    const Tensor window = has_window ? context.input(2).contiguous() : Tensor();
    const Shape window_shape = has_window ? window.shape() : Shape();
    const StftGeometry g = geometry(node, signal.shape(), context.input(1), has_window ? &window_shape : nullptr,
                                    context.has_input(3) ? &context.input(3) : nullptr);
    const Tensor& out = context.output(0);
    const std::size_t L = static_cast<std::size_t>(g.frame_length);
    const std::size_t bins = static_cast<std::size_t>(g.bins);
    std::vector<double> re(L), im(L), out_re(bins), out_im(bins);
    ew::dispatch(signal.dtype(), StftTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      const std::span<const S> x = signal.data<S>();
      const std::span<const S> w = has_window ? window.data<S>() : std::span<const S>();
      const std::span<S> o = out.mutable_data<S>();
      const std::int64_t channels = g.complex_in ? 2 : 1;
      for (std::int64_t b = 0; b < g.batch; ++b) {
        for (std::int64_t f = 0; f < g.frames; ++f) {
          for (std::size_t n = 0; n < L; ++n) {
            // The window multiplies each sample (binary64, one rounding per product).
            const double scale = has_window ? static_cast<double>(E::load(w[n])) : 1.0;
            const std::size_t at =
                static_cast<std::size_t>((b * g.signal_length + f * g.step + static_cast<std::int64_t>(n)) * channels);
            re[n] = static_cast<double>(E::load(x[at])) * scale;
            im[n] = g.complex_in ? static_cast<double>(E::load(x[at + 1])) * scale : 0.0;
          }
          spectral::dft_line(re.data(), im.data(), L, L, bins, -1, out_re.data(), out_im.data());
          for (std::size_t k = 0; k < bins; ++k) {
            const std::size_t at = static_cast<std::size_t>(((b * g.frames + f) * g.bins + static_cast<std::int64_t>(k)) * 2);
            o[at] = E::store(static_cast<typename E::value>(out_re[k]));
            o[at + 1] = E::store(static_cast<typename E::value>(out_im[k]));
          }
        }
      }
    });
  }

 private:
  StftGeometry geometry(const NodeInfo& node, const Shape& signal, const Tensor& step, const Shape* window,
                        const Tensor* length) const {
    if (signal.rank() != 3 || (signal[2] != 1 && signal[2] != 2)) {
      node.fail_invalid("the signal must be [batch, signal_length, 1 or 2], got " + signal.to_string());
    }
    StftGeometry g;
    g.batch = signal[0];
    g.signal_length = signal[1];
    g.complex_in = signal[2] == 2;
    if (g.complex_in && onesided_ == 1) node.fail_invalid("onesided = 1 takes a real signal");
    g.step = spectral::int_scalar(node, step, "frame_step");
    if (g.step < 1) node.fail_invalid("frame_step " + std::to_string(g.step) + " is not positive");
    if (window != nullptr && window->rank() != 1) node.fail_invalid("the window must be 1-D, got " + window->to_string());
    if (length != nullptr) {
      g.frame_length = spectral::int_scalar(node, *length, "frame_length");
      if (window != nullptr && (*window)[0] != g.frame_length) {
        node.fail_invalid("the window's length " + std::to_string((*window)[0]) + " differs from frame_length " +
                          std::to_string(g.frame_length));
      }
    } else {
      g.frame_length = window != nullptr ? (*window)[0] : g.signal_length;
    }
    if (g.frame_length < 1 || g.frame_length > g.signal_length) {
      node.fail_invalid("frame_length " + std::to_string(g.frame_length) + " outside [1, signal_length " +
                        std::to_string(g.signal_length) + "]");
    }
    g.frames = (g.signal_length - g.frame_length) / g.step + 1;
    g.bins = onesided_ == 1 ? g.frame_length / 2 + 1 : g.frame_length;
    return g;
  }

  std::int64_t onesided_;
};

}  // namespace

std::unique_ptr<OpKernel> make_stft(const NodeInfo& node) { return std::make_unique<Stft>(node); }

}  // namespace onemodel
