// ArrayFeatureExtractor (ai.onnx.ml, version 1): spec/ops/ml.md section 2. X [..., N] (float32,
// float64, int32, int64), Y int64 indices of any shape, k elements in all: Z [..., k] with
// Z[..., j] = X[..., Y_flat[j]]; a 1-D X gives [1, k] (ONNX Runtime's shape, which ONNX's
// reference follows). Moves elements only: exact.
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel {
namespace {

using FeatureTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>;

class ArrayFeatureExtractor final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    ew::require(context, 0, FeatureTypes{});
    context.require_type(1, {DType::I64});
    const Shape& x = context.input_shape(0);
    if (x.rank() < 1) context.node().fail_invalid("X must have at least one axis");
    std::vector<std::int64_t> out(x.extents().begin(), x.extents().end() - 1);
    if (out.empty()) out.push_back(1);
    out.push_back(context.input_shape(1).element_count());
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), out));
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const std::vector<std::int64_t> index = context.input(1).contiguous().to_vector<std::int64_t>();
    const std::int64_t n = x.shape()[x.rank() - 1];
    for (std::size_t j = 0; j < index.size(); ++j) {
      if (index[j] < 0 || index[j] >= n) {
        shape_ops::fail_index(context.node(), "index " + std::to_string(index[j]) + " at position " + std::to_string(j) +
                                                  " outside [0, " + std::to_string(n) + ")");
      }
    }
    const std::int64_t rows = n == 0 ? 0 : x.element_count() / n;
    ew::dispatch(x.dtype(), FeatureTypes{}, [&](auto tag) {
      using S = typename decltype(tag)::storage;
      const auto in = x.data<S>();
      const auto o = context.output(0).mutable_data<S>();
      std::size_t at = 0;
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t i : index) o[at++] = in[static_cast<std::size_t>(r * n + i)];
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_array_feature_extractor(const NodeInfo&) {
  return std::make_unique<ArrayFeatureExtractor>();
}

}  // namespace onemodel
