// Trilu (opset 14+): keeps the upper (j - i >= k, `upper` = 1, the default) or lower (j - i <= k)
// triangle of the last two axes, batched over leading axes, and zeroes the rest; `k` is an
// optional int64 scalar input, default 0 (spec/ops/shape-indexing.md section 2, Trilu).
#include <cstring>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Trilu final : public OpKernel {
 public:
  explicit Trilu(bool upper) : upper_(upper) {}
  void infer(InferContext& context) const override {
    if (context.input_shape(0).rank() < 2) context.node().fail_invalid("input rank must be at least 2");
    context.set_output(0, context.input_type(0), context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    std::int64_t k = 0;
    if (context.has_input(1)) {
      const std::vector<std::int64_t> kv = read_ints(node, context.input(1), "k");
      if (kv.size() != 1) node.fail_invalid("k must be a scalar");
      k = kv[0];
    }
    const Tensor& out = context.output(0);
    context.input(0).copy_to(mutable_tensor_bytes(out));
    const int rank = out.rank();
    const std::int64_t rows = out.shape()[rank - 2];
    const std::int64_t cols = out.shape()[rank - 1];
    const std::size_t esize = dtype_size(out.dtype());
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    const std::int64_t matrices = rows * cols == 0 ? 0 : out.element_count() / (rows * cols);
    for (std::int64_t m = 0; m < matrices; ++m) {
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const bool keep = upper_ ? j - i >= k : j - i <= k;
          if (!keep) std::memset(dst.data() + static_cast<std::size_t>((m * rows + i) * cols + j) * esize, 0, esize);
        }
      }
    }
  }

 private:
  bool upper_;
};

}  // namespace

std::unique_ptr<OpKernel> make_trilu(const NodeInfo& node) { return std::make_unique<Trilu>(node.get_int("upper", 1) != 0); }

}  // namespace onemodel
