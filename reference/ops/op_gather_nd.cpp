// GatherND (opset 11+; `batch_dims` from 12): with data rank r, indices shape [..., k] and b batch
// axes, each index tuple selects data[batch..., tuple] (a slice of extents data.shape[b+k:]);
// output shape = indices.shape[:-1] + data.shape[b+k:] (spec/ops/shape-indexing.md section 2,
// GatherND). Indices int64 (int32 accepted), negative counted from the end, outside its extent
// InvalidInput.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class GatherND final : public OpKernel {
 public:
  explicit GatherND(std::int64_t batch_dims) : batch_dims_(batch_dims) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(1, {DType::I32, DType::I64});
    const Shape& data = context.input_shape(0);
    const Shape& indices = context.input_shape(1);
    check(node, data, indices);
    const std::int64_t k = indices[indices.rank() - 1];
    std::vector<std::int64_t> out;
    for (int d = 0; d + 1 < indices.rank(); ++d) out.push_back(indices[d]);
    for (std::int64_t d = batch_dims_ + k; d < data.rank(); ++d) out.push_back(data[static_cast<int>(d)]);
    if (out.size() > static_cast<std::size_t>(kMaxRank)) node.fail_unsupported("output rank above 8");
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor data = context.input(0).contiguous();
    const Tensor& index_tensor = context.input(1);
    const std::vector<std::int64_t> indices = read_ints(node, index_tensor, "indices");
    const Shape& ds = data.shape();
    const Shape& is = index_tensor.shape();
    const int b = static_cast<int>(batch_dims_);
    const int k = is[is.rank() - 1];
    std::int64_t batches = 1;
    for (int d = 0; d < b; ++d) batches *= ds[d];
    std::int64_t tuples_per_batch = 1;
    for (int d = b; d + 1 < is.rank(); ++d) tuples_per_batch *= is[d];
    std::int64_t slice = 1;
    for (int d = b + k; d < ds.rank(); ++d) slice *= ds[d];
    std::int64_t batch_stride = slice;  // elements of data per batch
    for (int d = b; d < b + k; ++d) batch_stride *= ds[d];
    const SourceElements src(data);
    const TargetElements dst(context.output(0));
    std::int64_t written = 0;  // elements
    for (std::int64_t batch = 0; batch < batches; ++batch) {
      for (std::int64_t t = 0; t < tuples_per_batch; ++t) {
        const std::size_t at = static_cast<std::size_t>((batch * tuples_per_batch + t) * k);
        std::int64_t from = 0;
        for (int j = 0; j < k; ++j) {
          const std::int64_t n = ds[b + j];
          std::int64_t i = indices[at + static_cast<std::size_t>(j)];
          if (i < -n || i >= n) fail_index(node, "index " + std::to_string(i) + " outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
          if (i < 0) i += n;
          from = from * n + i;
        }
        move_elements(dst, written, src, batch * batch_stride + from * slice, slice);
        written += slice;
      }
    }
  }

 private:
  void check(const NodeInfo& node, const Shape& data, const Shape& indices) const {
    if (indices.rank() < 1 || data.rank() < 1) node.fail_invalid("data and indices need rank >= 1");
    if (batch_dims_ < 0 || batch_dims_ >= indices.rank() || batch_dims_ >= data.rank()) node.fail_invalid("batch_dims out of range");
    for (int d = 0; d < batch_dims_; ++d) {
      if (data[d] != indices[d]) node.fail_invalid("batch extents of data and indices differ");
    }
    const std::int64_t k = indices[indices.rank() - 1];
    if (k < 1 || batch_dims_ + k > data.rank()) node.fail_invalid("index tuple length out of range");
  }
  std::int64_t batch_dims_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather_nd(const NodeInfo& node) {
  return std::make_unique<GatherND>(node.get_int("batch_dims", 0));
}

}  // namespace onemodel
