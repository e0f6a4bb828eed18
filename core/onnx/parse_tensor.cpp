#include "core/onnx/message_parsers.hpp"
#include "core/onnx/tensor_fields.hpp"
#include "core/onnx/tensor_rules.hpp"
#include "core/protobuf/field_values.hpp"

namespace onemodel::onnx {

IrTensor parse_tensor(ImportContext& ctx, pb::WireReader& reader) {
  return build_tensor(ctx, read_tensor_fields(ctx.pb, reader));
}

// spec/onnx-import.md section 3: a sparse tensor is kept as written: values 1, indices 2, dims 3.
// Both tensors must be present: a sparse tensor without them has no meaning, and an absent one
// would otherwise pass on as a tensor without an element type (found by the onnx_reader fuzzer).
IrSparseTensor parse_sparse_tensor(ImportContext& ctx, pb::WireReader& r) {
  IrSparseTensor s;
  std::vector<std::uint64_t> dims;
  bool has_values = false;
  bool has_indices = false;
  pb::WireField f;
  while (r.next(f)) {
    switch (f.number) {
      case 1: has_values = pb::read_message(ctx.pb, f, "values", -1, [&](pb::WireReader& sub) { s.values = parse_tensor(ctx, sub); }) || has_values; break;
      case 2: has_indices = pb::read_message(ctx.pb, f, "indices", -1, [&](pb::WireReader& sub) { s.indices = parse_tensor(ctx, sub); }) || has_indices; break;
      case 3: pb::append_varints(ctx.pb, f, "dims", dims); break;
      default: break;
    }
  }
  if (!has_values || !has_indices) {
    pb::PathScope scope(ctx.pb, has_values ? "indices" : "values", -1);
    ctx.pb.fail(ModelErrorKind::InvalidModel, std::string("sparse tensor has no ") + (has_values ? "indices" : "values"),
                r.begin());
  }
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<std::int64_t>(dims[i]);
    if (d < 0) {
      pb::PathScope scope(ctx.pb, "dims", static_cast<std::int64_t>(i));
      ctx.pb.fail(ModelErrorKind::InvalidModel, "negative dimension " + std::to_string(d), r.begin());
    }
    s.dims.push_back(d);
  }
  return s;
}

}  // namespace onemodel::onnx
