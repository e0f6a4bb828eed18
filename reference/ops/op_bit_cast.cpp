// BitCast (opset 26): the input's bytes reinterpreted as the element type `to` of the same width,
// little endian, same shape (ONNX BitCast text; spec/ops/shape-indexing.md section 2, BitCast).
// `to` is required; a type of another width is InvalidModel, a type the library does not store
// (strings, complex, 8-, 4- and 2-bit floats and integers) is Unsupported. A bool output keeps the
// library's bool invariant (each byte 0 or 1): a byte of another value bit-cast to bool is
// InvalidInput. Every stored type; exact (no arithmetic).
#include <string>

#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "onemodel/tensor_error.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

class BitCast final : public OpKernel {
 public:
  explicit BitCast(DType to) : to_(to) {}
  void infer(InferContext& context) const override {
    const DType from = context.input_type(0);
    if (dtype_size(from) != dtype_size(to_)) {
      context.node().fail_invalid("cannot reinterpret " + std::string(dtype_name(from)) + " (" +
                                  std::to_string(8 * dtype_size(from)) + " bits) as " + std::string(dtype_name(to_)) +
                                  " (" + std::to_string(8 * dtype_size(to_)) + " bits)");
    }
    context.set_output(0, to_, context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    std::span<const std::byte> src = tensor_bytes(in);
    if (to_ == DType::Bool && in.dtype() != DType::Bool) {
      for (std::size_t i = 0; i < src.size(); ++i) {
        if (src[i] != std::byte{0} && src[i] != std::byte{1}) {
          shape_ops::fail_index(context.node(), "byte " + std::to_string(static_cast<int>(src[i])) + " at element " +
                                                    std::to_string(i) + " is not a bool (0 or 1)");
        }
      }
    }
    std::span<std::byte> dst = mutable_tensor_bytes(context.output(0));
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = src[i];
  }

 private:
  DType to_;
};

}  // namespace

std::unique_ptr<OpKernel> make_bit_cast(const NodeInfo& node) {
  const std::int64_t to = node.required_int("to");
  // STRING is stored, but as objects without a bit pattern to reinterpret (spec/tensors.md section 8).
  if (to < 0 || to > 0x7FFFFFFF || !dtype_is_stored(static_cast<std::int32_t>(to)) || to == 8) {
    node.fail_unsupported("to = " + std::to_string(to) + " (" +
                          std::string(onnx_type_name(static_cast<std::int32_t>(to < 0 || to > 0x7FFFFFFF ? -1 : to))) +
                          ") is not a type the library stores");
  }
  return std::make_unique<BitCast>(static_cast<DType>(to));
}

}  // namespace onemodel
