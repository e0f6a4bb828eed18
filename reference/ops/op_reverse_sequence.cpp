// ReverseSequence (opsets 10, 28; 28 only added types): for each batch entry b (along
// `batch_axis`), the first sequence_lens[b] elements along `time_axis` are reversed and the rest
// copied (ONNX ReverseSequence text; spec/ops/shape-indexing.md section 2, ReverseSequence).
// batch_axis (default 1) and time_axis (default 0) are 0 or 1 and differ; the input has rank 2 or
// more; sequence_lens is int64 of shape [batch extent], each length in [0, time extent] (a
// length outside is InvalidInput at run time, checked before any byte is written). Moves bytes:
// every stored type, exact.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class ReverseSequence final : public OpKernel {
 public:
  explicit ReverseSequence(const NodeInfo& node)
      : batch_axis_(node.get_int("batch_axis", 1)), time_axis_(node.get_int("time_axis", 0)) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
    if (batch_axis_ != 0 && batch_axis_ != 1) node.fail_invalid("batch_axis must be 0 or 1, not " + std::to_string(batch_axis_));
    if (time_axis_ != 0 && time_axis_ != 1) node.fail_invalid("time_axis must be 0 or 1, not " + std::to_string(time_axis_));
    if (batch_axis_ == time_axis_) node.fail_invalid("batch_axis and time_axis are both " + std::to_string(time_axis_));
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    const Shape& in = context.input_shape(0);
    if (in.rank() < 2) node.fail_invalid("input must have rank 2 or more, not " + std::to_string(in.rank()));
    if (context.input_type(1) != DType::I64) {
      node.fail_invalid("sequence_lens must be int64, not " + std::string(dtype_name(context.input_type(1))));
    }
    const Shape& lens = context.input_shape(1);
    if (lens.rank() != 1 || lens[0] != in[static_cast<int>(batch_axis_)]) {
      node.fail_invalid("sequence_lens must have shape [" + std::to_string(in[static_cast<int>(batch_axis_)]) +
                        "] (the batch extent)");
    }
    context.set_output(0, context.input_type(0), in);
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor in = context.input(0).contiguous();
    const Shape& shape = in.shape();
    const std::vector<std::int64_t> lens = context.input(1).contiguous().to_vector<std::int64_t>();
    const int time = static_cast<int>(time_axis_);
    const int batch = static_cast<int>(batch_axis_);
    const std::int64_t steps = shape[time];
    for (std::size_t b = 0; b < lens.size(); ++b) {
      if (lens[b] < 0 || lens[b] > steps) {
        fail_index(node, "sequence_lens[" + std::to_string(b) + "] = " + std::to_string(lens[b]) + " outside [0, " +
                             std::to_string(steps) + "]");
      }
    }
    const std::vector<std::int64_t> strides = row_major_strides(shape);
    const SourceElements src(in);
    const TargetElements dst(context.output(0));
    // Output element at time t of batch b reads time len - 1 - t when t < len, else t.
    for_each_index(shape, [&](const auto& index, std::int64_t flat) {
      const std::int64_t t = index[static_cast<std::size_t>(time)];
      const std::int64_t len = lens[static_cast<std::size_t>(index[static_cast<std::size_t>(batch)])];
      const std::int64_t source_t = t < len ? len - 1 - t : t;
      move_element(dst, flat, src, flat + (source_t - t) * strides[static_cast<std::size_t>(time)]);
    });
  }

 private:
  std::int64_t batch_axis_, time_axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_reverse_sequence(const NodeInfo& node) { return std::make_unique<ReverseSequence>(node); }

}  // namespace onemodel
