// CausalConvWithState (opset 27): spec/ops/products-conv.md section 14, from the ONNX
// CausalConvWithState text and its function body (Concat, Conv with group = channels, SiLU,
// Slice). The padded sequence is the carry (past_state, or zeros) followed by the input; output
// position t of channel c is the depthwise product of the k taps ending at the input's position
// t, summed from +0 in increasing tap order, then the bias added, then SiLU when asked; the
// present state is the padded sequence's last k - 1 positions. Only + and * and the library's
// exact sigmoid in that order: exact. float32 (float16 and bfloat16 through the adapter).
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/ops/exact_dot.hpp"

namespace onemodel {
namespace {

enum : std::size_t { kInput = 0, kWeight, kBias, kPastState };

enum class Activation { None, Silu };

Activation read_activation(const NodeInfo& node) {
  // Section 14: 'swish' is another name of 'silu' (x * sigmoid(x)).
  const std::string name = node.get_string("activation", "none");
  if (name == "none") return Activation::None;
  if (name == "silu" || name == "swish") return Activation::Silu;
  node.fail_invalid("CausalConvWithState: activation '" + name + "' is not one of silu, swish, none");
}

struct CausalGeometry {
  std::int64_t batch = 0, channels = 0, length = 0, kernel = 0;
  std::int64_t carry() const noexcept { return kernel - 1; }
};

// Section 14: input (B, C, L), weight (C, 1, k) with k >= 1, bias (C), past_state (B, C, k - 1).
CausalGeometry causal_geometry(const NodeInfo& node, const Shape& input, const Shape& weight, const Shape* bias,
                               const Shape* past) {
  if (input.rank() != 3) node.fail_invalid("CausalConvWithState: input must be 3-D (batch, channels, length)");
  if (weight.rank() != 3) node.fail_invalid("CausalConvWithState: weight must be 3-D (channels, 1, k)");
  CausalGeometry g;
  g.batch = input[0];
  g.channels = input[1];
  g.length = input[2];
  g.kernel = weight[2];
  if (weight[0] != g.channels || weight[1] != 1) {
    node.fail_invalid("CausalConvWithState: weight must be (channels, 1, k) with the input's channels");
  }
  if (g.kernel < 1) node.fail_invalid("CausalConvWithState: the kernel size k must be at least 1");
  if (bias != nullptr && (bias->rank() != 1 || (*bias)[0] != g.channels)) {
    node.fail_invalid("CausalConvWithState: bias must be 1-D with one element per channel");
  }
  if (past != nullptr &&
      (past->rank() != 3 || (*past)[0] != g.batch || (*past)[1] != g.channels || (*past)[2] != g.carry())) {
    node.fail_invalid("CausalConvWithState: past_state must be (batch, channels, k - 1)");
  }
  return g;
}

class CausalConvWithState final : public OpKernel {
 public:
  explicit CausalConvWithState(Activation activation) : activation_(activation) {}

  void infer(InferContext& context) const override {
    context.require_type(kInput, {DType::F32});
    context.require_type(kWeight, {DType::F32});
    const bool has_bias = context.has_input(kBias);
    const bool has_past = context.has_input(kPastState);
    if (has_bias) context.require_type(kBias, {DType::F32});
    if (has_past) context.require_type(kPastState, {DType::F32});
    const CausalGeometry g =
        causal_geometry(context.node(), context.input_shape(kInput), context.input_shape(kWeight),
                        has_bias ? &context.input_shape(kBias) : nullptr,
                        has_past ? &context.input_shape(kPastState) : nullptr);
    context.set_output(0, DType::F32, context.input_shape(kInput));
    if (context.output_wanted(1)) context.set_output(1, DType::F32, Shape{g.batch, g.channels, g.carry()});
  }

  void run(RunContext& context) const override {
    const Tensor input_t = context.input(kInput).contiguous();
    const Tensor weight_t = context.input(kWeight).contiguous();
    Tensor bias_t, past_t;
    if (context.has_input(kBias)) bias_t = context.input(kBias).contiguous();
    if (context.has_input(kPastState)) past_t = context.input(kPastState).contiguous();
    const CausalGeometry g = causal_geometry(context.node(), input_t.shape(), weight_t.shape(),
                                             bias_t.defined() ? &bias_t.shape() : nullptr,
                                             past_t.defined() ? &past_t.shape() : nullptr);
    const float* x = input_t.data<float>().data();
    const float* w = weight_t.data<float>().data();
    const float* bias = bias_t.defined() ? bias_t.data<float>().data() : nullptr;
    const float* past = past_t.defined() ? past_t.data<float>().data() : nullptr;
    float* y = context.output(0).mutable_data<float>().data();
    float* present = context.output_wanted(1) ? context.output(1).mutable_data<float>().data() : nullptr;

    const std::int64_t carry = g.carry();
    // With no channel or no batch row there is nothing to compute; k may then be any extent of
    // an empty weight, so nothing is allocated from it.
    if (g.batch == 0 || g.channels == 0) return;
    const std::int64_t padded_length = carry + g.length;
    if (padded_length > kMaxElements) context.node().fail_unsupported("CausalConvWithState: k - 1 + length beyond 2^31 - 1");
    std::vector<float> padded(static_cast<std::size_t>(padded_length));
    for (std::int64_t b = 0; b < g.batch; ++b) {
      for (std::int64_t c = 0; c < g.channels; ++c) {
        const std::int64_t row = b * g.channels + c;
        // Section 14: padded = concat(past_state or +0, input) along the length axis.
        for (std::int64_t p = 0; p < carry; ++p) {
          padded[static_cast<std::size_t>(p)] = past != nullptr ? past[row * carry + p] : 0.0f;
        }
        for (std::int64_t p = 0; p < g.length; ++p) {
          padded[static_cast<std::size_t>(carry + p)] = x[row * g.length + p];
        }
        const float* taps = w + c * g.kernel;
        for (std::int64_t t = 0; t < g.length; ++t) {
          // Conv's order (section 2): +0, then taps j = 0 .. k-1, each product rounded.
          float acc = products::accumulator_start<float>();
          for (std::int64_t j = 0; j < g.kernel; ++j) {
            acc = products::product_step(acc, taps[j], padded[static_cast<std::size_t>(t + j)]);
          }
          acc = canonical_nan_f32(acc);
          // Then the bias, one rounded addition (Conv's bias pass).
          if (bias != nullptr) acc = canonical_nan_f32(acc + bias[c]);
          // Then SiLU: the sum times its exact sigmoid, one rounded product.
          if (activation_ == Activation::Silu) acc = canonical_nan_f32(acc * exact::sigmoid(acc));
          y[row * g.length + t] = acc;
        }
        // Section 14: present_state is the padded sequence's last k - 1 positions.
        if (present != nullptr) {
          for (std::int64_t p = 0; p < carry; ++p) {
            present[row * carry + p] = canonical_nan_f32(padded[static_cast<std::size_t>(g.length + p)]);
          }
        }
      }
    }
  }

 private:
  Activation activation_;
};

}  // namespace

std::unique_ptr<OpKernel> make_causal_conv_with_state(const NodeInfo& node) {
  return std::make_unique<CausalConvWithState>(read_activation(node));
}

}  // namespace onemodel
