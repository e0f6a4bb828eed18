#include "core/graph/half_convert.hpp"

#include "onemodel/half.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

void check_pair(const Tensor& from, const Tensor& to) {
  if (from.shape() != to.shape()) {
    throw TensorError(TensorErrorKind::Shape, "half-precision conversion between tensors of different shapes");
  }
}

}  // namespace

void widen_into(const Tensor& half, const Tensor& out) {
  check_pair(half, out);
  const Tensor source = half.contiguous();
  const std::span<const std::uint16_t> in = source.data<std::uint16_t>();
  const std::span<float> to = out.mutable_data<float>();
  if (half.dtype() == DType::BF16) {
    bfloat16_bits_to_floats(in, to);
  } else {
    half_bits_to_floats(in, to);
  }
}

Tensor widen_tensor(const Tensor& half) {
  Tensor out = Tensor::empty(DType::F32, half.shape());
  widen_into(half, out);
  return out;
}

void narrow_into(const Tensor& f32, const Tensor& out) {
  check_pair(f32, out);
  const Tensor source = f32.contiguous();
  const std::span<const float> in = source.data<float>();
  const std::span<std::uint16_t> to = out.mutable_data<std::uint16_t>();
  if (out.dtype() == DType::BF16) {
    floats_to_bfloat16_bits(in, to);
  } else {
    floats_to_half_bits(in, to);
  }
}

Tensor narrow_tensor(const Tensor& f32, DType type) {
  Tensor out = Tensor::empty(type, f32.shape());
  narrow_into(f32, out);
  return out;
}

}  // namespace onemodel
