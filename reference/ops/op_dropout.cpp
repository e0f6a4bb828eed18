// Dropout (spec/ops/shape-indexing.md section 2, Dropout): output = input and the optional mask
// all true. A `training_mode` input (opset 12+) that is true drops elements at random
// (spec/ops/random.md section 11): element i is kept when its uniform draw is at least `ratio`
// (0.5 when absent), and a kept element is scaled by 1 / (1 - ratio); the mask says which were
// kept. Values known only at run time are read at run time. Before opset 10 the mask has the
// input's type (all ones); from 10 it is bool.
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "onemodel/half.hpp"
#include "core/graph/node_info.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/random_draws.hpp"
#include "reference/ops/random_fill.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

// The bytes of the value one in `type` (the pre-10 mask).
std::vector<std::byte> one_bytes(DType type) {
  std::vector<std::byte> bytes(dtype_size(type));
  auto put = [&bytes](auto v) { std::memcpy(bytes.data(), &v, sizeof v); };
  switch (type) {
    case DType::F32: put(1.0f); break;
    case DType::F64: put(1.0); break;
    case DType::F16: put(float_to_half_bits(1.0f)); break;
    case DType::BF16: put(float_to_bfloat16_bits(1.0f)); break;
    default: bytes[0] = std::byte{1}; break;  // integers and bool, little-endian
  }
  return bytes;
}

// training_mode is one bool (ONNX Dropout: "scalar"); any other count is the caller's error, not
// a silent "no" (a one-element tensor of rank 1 is taken, as ratio's is).
bool training_requested(const NodeInfo& node, const Tensor& t, bool at_run) {
  if (t.element_count() != 1) {
    const std::string message = "training_mode must be one bool value, got " + t.shape().to_string();
    if (at_run) throw SessionError(SessionErrorKind::InvalidInput, "Dropout: " + message, node.name());
    node.fail_invalid(message);
  }
  return t.dtype() == DType::Bool && t.to_vector<bool>()[0];
}

// The ratio input's value widened to binary64 (0.5 when absent); a ratio outside [0, 1) (NaN
// included) or not a one-element float tensor is InvalidInput (ONNX Dropout: "ratio ... [0, 1)").
double training_ratio(const RunContext& context) {
  if (!context.has_input(1)) return 0.5;
  const Tensor r = context.input(1).contiguous();
  double v = -1.0;
  if (r.element_count() == 1) {
    switch (r.dtype()) {
      case DType::F32: v = r.data<float>()[0]; break;
      case DType::F64: v = r.data<double>()[0]; break;
      case DType::F16: v = half_bits_to_float(r.data<std::uint16_t>()[0]); break;
      case DType::BF16: v = bfloat16_bits_to_float(r.data<std::uint16_t>()[0]); break;
      default: break;
    }
  }
  if (!(v >= 0.0 && v < 1.0)) {
    throw SessionError(SessionErrorKind::InvalidInput,
                       "Dropout: ratio must be one floating value in [0, 1) in training mode", context.node().name());
  }
  return v;
}

[[noreturn]] void fail_training_type(const NodeInfo& node, DType type) {
  node.fail_unsupported("training_mode with input type " + std::string(dtype_name(type)));
}

class Dropout final : public OpKernel {
 public:
  Dropout(bool bool_mask, bool has_seed, std::uint64_t seed_bits, bool may_train)
      : bool_mask_(bool_mask), has_seed_(has_seed), seed_bits_(seed_bits) {
    draws_random = may_train;  // a training_mode input may ask for draws
  }
  void infer(InferContext& context) const override {
    if (context.has_input(2)) {
      // A training_mode known here is judged now: a constant of more than one element is the
      // model's error (InvalidModel), and scaling the kept elements needs a floating type (ONNX
      // Dropout's T from opset 12). A fed one is read by run(), which refuses the same way, so an
      // engine that plans without input values and one that infers with them agree on every call.
      const Tensor* mode = context.input_value(2);
      if (mode != nullptr && training_requested(context.node(), *mode, false) &&
          !random_draws::is_float_output(context.input_type(0))) {
        fail_training_type(context.node(), context.input_type(0));
      }
    }
    context.set_output(0, context.input_type(0), context.input_shape(0));
    if (context.output_wanted(1)) {
      context.set_output(1, bool_mask_ ? DType::Bool : context.input_type(0), context.input_shape(0));
    }
  }
  void run(RunContext& context) const override {
    if (context.has_input(2) && training_requested(context.node(), context.input(2), true)) {
      if (!random_draws::is_float_output(context.input(0).dtype())) {
        fail_training_type(context.node(), context.input(0).dtype());
      }
      run_training(context, training_ratio(context));
      return;
    }
    context.input(0).copy_to(mutable_tensor_bytes(context.output(0)));
    if (context.output_wanted(1)) {
      const Tensor& mask = context.output(1);
      const std::vector<std::byte> one = one_bytes(mask.dtype());
      std::span<std::byte> out = mutable_tensor_bytes(mask);
      for (std::size_t i = 0; i < out.size(); i += one.size()) std::memcpy(out.data() + i, one.data(), one.size());
    }
  }

 private:
  // spec/ops/random.md section 11: keep_i = (u_i >= ratio), u_i the 53-bit uniform draw of
  // element i; y_i = x_i * scale for kept elements, else 0, scale = 1 / (1 - ratio) rounded to the
  // element type (binary32 for float16 and bfloat16, then the product rounded to the type).
  void run_training(RunContext& context, double ratio) const {
    const Tensor x = context.input(0).contiguous();
    const Tensor& y = context.output(0);
    const random_draws::Source source = random_draws::source_for(context, has_seed_, seed_bits_);
    const double scale64 = 1.0 / (1.0 - ratio);
    const float scale32 = static_cast<float>(scale64);
    const bool want_mask = context.output_wanted(1);
    const std::int64_t n = x.element_count();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::array<std::uint32_t, 4> w = random_draws::words(source, static_cast<std::uint64_t>(i), 0);
      const bool keep = random_draws::unit_double(w[0], w[1]) >= ratio;
      const auto k = static_cast<std::size_t>(i);
      if (x.dtype() == DType::F64) {
        y.mutable_data<double>()[k] = keep ? x.data<double>()[k] * scale64 : 0.0;
      } else if (x.dtype() == DType::F32) {
        y.mutable_data<float>()[k] = keep ? x.data<float>()[k] * scale32 : 0.0f;
      } else {
        const float xv = static_cast<float>(random_draws::load(x, i));
        random_draws::store(y, i, keep ? static_cast<double>(xv * scale32) : 0.0);
      }
      if (want_mask) context.output(1).mutable_data<std::uint8_t>()[k] = keep ? 1 : 0;
    }
  }

  bool bool_mask_;
  bool has_seed_;
  std::uint64_t seed_bits_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node) {
  if (node.opset() < 7 && node.get_int("is_test", 0) == 0) {
    node.fail_unsupported("is_test 0 asks for training");
  }
  return std::make_unique<Dropout>(node.opset() >= 10, node.has("seed"),
                                   static_cast<std::uint64_t>(node.get_int("seed", 0)), node.has_input(2));
}

}  // namespace onemodel
