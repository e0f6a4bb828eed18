// NonZero (opset 9+): the coordinates of the non-zero elements, output int64 [max(rank, 1), count]
// in row-major order; -0.0 is zero, NaN is not; a scalar counts as a 1-element vector. Data
// dependent: the output is allocated in run() (spec/ops/shape-indexing.md section 2, NonZero).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class NonZero final : public OpKernel {
 public:
  NonZero() { outputs_data_dependent = true; }
  void infer(InferContext&) const override {}
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    std::vector<bool> nonzero;
    ew::dispatch(in.dtype(), ew::StoredTypes{}, [&](auto tag) {
      using E = decltype(tag);
      for (auto s : in.template data<typename E::storage>()) {
        const auto v = E::load(s);
        nonzero.push_back(!(v == static_cast<decltype(v)>(0)));  // NaN != 0: counted
      }
    });
    const Shape shape = in.rank() == 0 ? Shape{1} : in.shape();
    const int rank = shape.rank();
    std::int64_t count = 0;
    for (bool b : nonzero) count += b ? 1 : 0;
    const Tensor& out = context.allocate_output(0, DType::I64, Shape{rank, count});
    std::span<std::int64_t> o = out.mutable_data<std::int64_t>();
    std::int64_t column = 0;
    for_each_index(shape, [&](const auto& index, std::int64_t flat) {
      if (!nonzero[static_cast<std::size_t>(flat)]) return;
      for (int d = 0; d < rank; ++d) o[static_cast<std::size_t>(d * count + column)] = index[static_cast<std::size_t>(d)];
      ++column;
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_non_zero(const NodeInfo&) { return std::make_unique<NonZero>(); }

}  // namespace onemodel
