// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp. Opset ranges as in
// spec/ops/shape-indexing.md section 2 (the attribute forms of older opsets are suffixed factories).
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
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
std::unique_ptr<OpKernel> make_scatter_nd(const NodeInfo&);
std::unique_ptr<OpKernel> make_tile(const NodeInfo&);
std::unique_ptr<OpKernel> make_top_k_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_top_k_10(const NodeInfo&);
std::unique_ptr<OpKernel> make_trilu(const NodeInfo&);
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
      {"", "Concat", 1, 27, make_concat},
      {"", "Constant", 1, 27, make_constant},
      {"", "Dropout", 1, 27, make_dropout},
      {"", "Flatten", 1, 27, make_flatten},
      {"", "Identity", 1, 27, make_identity},
      {"", "Reshape", 5, 27, make_reshape},
      {"", "Shape", 1, 27, make_shape},
      {"", "Size", 1, 27, make_size},
      {"", "Slice", 1, 9, make_slice_1},
      {"", "Slice", 10, 27, make_slice_10},
      {"", "Split", 1, 12, make_split_2},
      {"", "Split", 13, 17, make_split_13},
      {"", "Split", 18, 27, make_split_18},
      {"", "Squeeze", 1, 12, make_squeeze_1},
      {"", "Squeeze", 13, 27, make_squeeze_13},
      {"", "Transpose", 1, 27, make_transpose},
      {"", "Unsqueeze", 1, 12, make_unsqueeze_1},
      {"", "Unsqueeze", 13, 27, make_unsqueeze_13},
      {"", "ConstantOfShape", 9, 27, make_constant_of_shape},
      {"", "Expand", 8, 27, make_expand},
      {"", "Gather", 1, 27, make_gather},
      {"", "GatherElements", 11, 27, make_gather_elements},
      {"", "GatherND", 11, 27, make_gather_nd},
      {"", "NonZero", 9, 27, make_non_zero},
      {"", "OneHot", 9, 27, make_one_hot},
      {"", "Pad", 1, 10, make_pad_2},
      {"", "Pad", 11, 27, make_pad_11},
      {"", "Range", 11, 27, make_range},
      {"", "ScatterND", 11, 27, make_scatter_nd},
      {"", "Tile", 6, 27, make_tile},
      {"", "TopK", 1, 9, make_top_k_1},
      {"", "TopK", 10, 27, make_top_k_10},
      {"", "Trilu", 14, 27, make_trilu},
      {"", "DepthToSpace", 1, 27, make_depth_to_space},
      {"", "EyeLike", 9, 27, make_eye_like},
      {"", "ScatterElements", 11, 27, make_scatter_elements},
      {"", "SpaceToDepth", 1, 27, make_space_to_depth},
  };
  return rows;
}

}  // namespace onemodel
