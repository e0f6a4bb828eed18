// Operators of the ai.onnx.ml domain (spec/ops/ml.md). Each row's factory lives in
// reference/ops/op_<name>.cpp.
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_array_feature_extractor(const NodeInfo&);
std::unique_ptr<OpKernel> make_binarizer(const NodeInfo&);
std::unique_ptr<OpKernel> make_tree_ensemble(const NodeInfo&);
std::unique_ptr<OpKernel> make_label_encoder(const NodeInfo&);

std::span<const OpDef> ml_ops() {
  static const std::vector<OpDef> rows = {
      {"ai.onnx.ml", "ArrayFeatureExtractor", 1, 5, make_array_feature_extractor, "F32 F64 I32 I64"},
      {"ai.onnx.ml", "Binarizer", 1, 5, make_binarizer, "F32 F64 I32 I64"},
      {"ai.onnx.ml", "TreeEnsemble", 5, 5, make_tree_ensemble, "F32 F64"},
      // Versions 1, 2 and 4 (3 was never defined); keys of version 1 and 2 are String I64 (F32).
      {"ai.onnx.ml", "LabelEncoder", 1, 5, make_label_encoder, "F32 F64 I16 I32 I64 String"},
  };
  return rows;
}

}  // namespace onemodel
