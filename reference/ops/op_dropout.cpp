// Dropout (spec/ops/shape-indexing.md section 2, Dropout): output = input and the optional mask
// all true. A `training_mode` input (opset 12+) that is true drops nothing when `ratio` is 0 (the
// same output: ONNX scales the kept values by 1 / (1 - 0)); with any other ratio (0.5 when absent)
// it would draw random numbers and is Unsupported. Values known only at run time are read at run
// time. Before opset 10 the mask has the input's type (all ones); from 10 it is bool.
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "onemodel/half.hpp"
#include "reference/ops/axis_helpers.hpp"
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

bool training_requested(const Tensor& t) {
  // training_mode is a bool scalar.
  return t.dtype() == DType::Bool && t.element_count() == 1 && t.to_vector<bool>()[0];
}

// True when the ratio input is present and holds exactly 0 (float types; anything else is not 0).
bool ratio_is_zero(const Tensor* ratio) {
  if (ratio == nullptr || ratio->element_count() != 1) return false;
  const Tensor r = ratio->contiguous();
  switch (r.dtype()) {
    case DType::F32: return r.data<float>()[0] == 0.0f;
    case DType::F64: return r.data<double>()[0] == 0.0;
    case DType::F16: return (r.data<std::uint16_t>()[0] & 0x7FFFu) == 0;
    case DType::BF16: return (r.data<std::uint16_t>()[0] & 0x7FFFu) == 0;
    default: return false;
  }
}

class Dropout final : public OpKernel {
 public:
  explicit Dropout(bool bool_mask) : bool_mask_(bool_mask) {}
  void infer(InferContext& context) const override {
    if (context.has_input(2)) {
      const Tensor* mode = context.input_value(2);
      if (mode != nullptr && training_requested(*mode)) {
        // A ratio known only at run time is checked by run().
        const Tensor* ratio = context.has_input(1) ? context.input_value(1) : nullptr;
        if (!(context.has_input(1) && ratio == nullptr) && !ratio_is_zero(ratio)) {
          context.node().fail_unsupported("training_mode true with a ratio other than 0 (random dropping)");
        }
      }
    }
    context.set_output(0, context.input_type(0), context.input_shape(0));
    if (context.output_wanted(1)) {
      context.set_output(1, bool_mask_ ? DType::Bool : context.input_type(0), context.input_shape(0));
    }
  }
  void run(RunContext& context) const override {
    if (context.has_input(2) && training_requested(context.input(2)) &&
        !ratio_is_zero(context.has_input(1) ? &context.input(1) : nullptr)) {
      context.node().fail_unsupported("training_mode true with a ratio other than 0 (random dropping)");
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
  bool bool_mask_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node) {
  if (node.opset() < 7 && node.get_int("is_test", 0) == 0) {
    node.fail_unsupported("is_test 0 asks for training");
  }
  return std::make_unique<Dropout>(node.opset() >= 10);
}

}  // namespace onemodel
