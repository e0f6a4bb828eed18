// EyeLike (opset 9+): a 2-D tensor of the input's shape, ones on the diagonal shifted by `k`
// (column = row + k), zeros elsewhere; element type `dtype` (default the input's)
// (spec/ops/shape-indexing.md section 2, EyeLike).
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class EyeLike final : public OpKernel {
 public:
  EyeLike(std::optional<DType> type, std::int64_t k) : type_(type), k_(k) {}
  void infer(InferContext& context) const override {
    const Shape& in = context.input_shape(0);
    if (in.rank() != 2) context.node().fail_invalid("input must have rank 2");
    context.set_output(0, type_.value_or(context.input_type(0)), in);
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    if (dst.empty()) return;  // an empty output has no storage: memset(nullptr, 0, 0) is undefined
    std::memset(dst.data(), 0, dst.size());
    const std::size_t esize = dtype_size(out.dtype());
    std::vector<std::byte> one(esize);
    ew::dispatch(out.dtype(), ew::StoredTypes{}, [&](auto tag) {
      using E = decltype(tag);
      const typename E::storage s = E::store(static_cast<typename E::value>(1));
      std::memcpy(one.data(), &s, esize);
    });
    const std::int64_t rows = out.shape()[0], cols = out.shape()[1];
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t j = i + k_;
      if (j >= 0 && j < cols) std::memcpy(dst.data() + static_cast<std::size_t>(i * cols + j) * esize, one.data(), esize);
    }
  }

 private:
  std::optional<DType> type_;
  std::int64_t k_;
};

}  // namespace

std::unique_ptr<OpKernel> make_eye_like(const NodeInfo& node) {
  std::optional<DType> type;
  if (node.has("dtype")) {
    const std::int64_t code = node.get_int("dtype", 1);
    if (!dtype_is_stored(static_cast<std::int32_t>(code))) node.fail_unsupported("dtype " + std::to_string(code));
    type = static_cast<DType>(code);
  }
  const std::int64_t k = node.get_int("k", 0);
  if (k < -kMaxElements || k > kMaxElements) node.fail_invalid("k out of range");
  return std::make_unique<EyeLike>(type, k);
}

}  // namespace onemodel
