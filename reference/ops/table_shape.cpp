// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp. Opset ranges as in
// spec/ops/shape-indexing.md section 2 (the attribute forms of older opsets are suffixed factories).
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_bit_cast(const NodeInfo&);
std::unique_ptr<OpKernel> make_center_crop_pad(const NodeInfo&);
std::unique_ptr<OpKernel> make_compress(const NodeInfo&);
std::unique_ptr<OpKernel> make_concat(const NodeInfo&);
std::unique_ptr<OpKernel> make_depth_to_space(const NodeInfo&);
std::unique_ptr<OpKernel> make_eye_like(const NodeInfo&);
std::unique_ptr<OpKernel> make_scatter_elements(const NodeInfo&);
std::unique_ptr<OpKernel> make_space_to_depth(const NodeInfo&);
std::unique_ptr<OpKernel> make_constant_of_shape(const NodeInfo&);
std::unique_ptr<OpKernel> make_expand(const NodeInfo&);
std::unique_ptr<OpKernel> make_gather(const NodeInfo&);
std::unique_ptr<OpKernel> make_gather_elements(const NodeInfo&);
std::unique_ptr<OpKernel> make_gather_nd(const NodeInfo&);
std::unique_ptr<OpKernel> make_non_zero(const NodeInfo&);
std::unique_ptr<OpKernel> make_one_hot(const NodeInfo&);
std::unique_ptr<OpKernel> make_pad_11(const NodeInfo&);
std::unique_ptr<OpKernel> make_pad_2(const NodeInfo&);
std::unique_ptr<OpKernel> make_range(const NodeInfo&);
std::unique_ptr<OpKernel> make_reverse_sequence(const NodeInfo&);
std::unique_ptr<OpKernel> make_scatter(const NodeInfo&);
std::unique_ptr<OpKernel> make_scatter_nd(const NodeInfo&);
std::unique_ptr<OpKernel> make_tensor_scatter(const NodeInfo&);
std::unique_ptr<OpKernel> make_tile(const NodeInfo&);
std::unique_ptr<OpKernel> make_top_k_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_top_k_10(const NodeInfo&);
std::unique_ptr<OpKernel> make_trilu(const NodeInfo&);
std::unique_ptr<OpKernel> make_unique_op(const NodeInfo&);
std::unique_ptr<OpKernel> make_constant(const NodeInfo&);
std::unique_ptr<OpKernel> make_dropout(const NodeInfo&);
std::unique_ptr<OpKernel> make_flatten(const NodeInfo&);
std::unique_ptr<OpKernel> make_identity(const NodeInfo&);
std::unique_ptr<OpKernel> make_reshape(const NodeInfo&);
std::unique_ptr<OpKernel> make_shape(const NodeInfo&);
std::unique_ptr<OpKernel> make_size(const NodeInfo&);
std::unique_ptr<OpKernel> make_slice_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_slice_10(const NodeInfo&);
std::unique_ptr<OpKernel> make_split_13(const NodeInfo&);
std::unique_ptr<OpKernel> make_split_18(const NodeInfo&);
std::unique_ptr<OpKernel> make_split_2(const NodeInfo&);
std::unique_ptr<OpKernel> make_squeeze_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_squeeze_13(const NodeInfo&);
std::unique_ptr<OpKernel> make_transpose(const NodeInfo&);
std::unique_ptr<OpKernel> make_unsqueeze_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_unsqueeze_13(const NodeInfo&);

std::span<const OpDef> shape_ops() {
  static const std::vector<OpDef> rows = {
      {"", "Concat", 1, 27, make_concat, "any String"},
      {"", "Constant", 1, 27, make_constant, "any String"},  // no input: the value attribute's type
      {"", "Dropout", 1, 27, make_dropout, "any"},
      {"", "Flatten", 1, 27, make_flatten, "any String"},
      {"", "Identity", 1, 27, make_identity, "any String"},
      {"", "Reshape", 5, 27, make_reshape, "any String"},
      {"", "Shape", 1, 27, make_shape, "any String"},
      {"", "Size", 1, 27, make_size, "any String"},
      {"", "Slice", 1, 9, make_slice_1, "any String"},
      {"", "Slice", 10, 27, make_slice_10, "any String"},
      {"", "Split", 1, 12, make_split_2, "any String"},
      {"", "Split", 13, 17, make_split_13, "any String"},
      {"", "Split", 18, 27, make_split_18, "any String"},
      {"", "Squeeze", 1, 12, make_squeeze_1, "any String"},
      {"", "Squeeze", 13, 27, make_squeeze_13, "any String"},
      {"", "Transpose", 1, 27, make_transpose, "any String"},
      {"", "Unsqueeze", 1, 12, make_unsqueeze_1, "any String"},
      {"", "Unsqueeze", 13, 27, make_unsqueeze_13, "any String"},
      {"", "ConstantOfShape", 9, 27, make_constant_of_shape, "any"},  // the value attribute's type
      {"", "Expand", 8, 27, make_expand, "any String"},
      {"", "Gather", 1, 27, make_gather, "any String"},
      {"", "GatherElements", 11, 27, make_gather_elements, "any String"},
      {"", "GatherND", 11, 27, make_gather_nd, "any String"},
      {"", "NonZero", 9, 27, make_non_zero, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64 Bool"},
      // OneHot: the indices (and depth); the values input may be any type.
      {"", "OneHot", 9, 27, make_one_hot, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Pad", 1, 10, make_pad_2, "any"},
      {"", "Pad", 11, 27, make_pad_11, "any"},
      {"", "Range", 11, 27, make_range, "F32 F64 F16 BF16 I16 I32 I64"},
      {"", "ScatterND", 11, 27, make_scatter_nd, "any String"},  // with a reduction: F32 F64 I32 I64
      {"", "Tile", 6, 27, make_tile, "any String"},
      {"", "TopK", 1, 9, make_top_k_1, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "TopK", 10, 27, make_top_k_10, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Trilu", 14, 27, make_trilu, "any"},
      {"", "DepthToSpace", 1, 27, make_depth_to_space, "any String"},
      {"", "EyeLike", 9, 27, make_eye_like, "any"},
      {"", "ScatterElements", 11, 27, make_scatter_elements, "any String"},  // a reduction: F32 F64 I32 I64
      {"", "SpaceToDepth", 1, 27, make_space_to_depth, "any String"},
      // Issue 17 (operator breadth).
      {"", "Compress", 9, 27, make_compress, "any String"},
      {"", "ReverseSequence", 10, 27, make_reverse_sequence, "any String"},
      {"", "Unique", 11, 27, make_unique_op, "any String"},
      {"", "Scatter", 9, 10, make_scatter, "any"},  // ScatterElements without a reduction
      {"", "TensorScatter", 24, 27, make_tensor_scatter, "any"},
      {"", "BitCast", 26, 27, make_bit_cast, "any"},  // to any stored type of the same width
      {"", "CenterCropPad", 18, 27, make_center_crop_pad, "any"},
  };
  return rows;
}

}  // namespace onemodel
