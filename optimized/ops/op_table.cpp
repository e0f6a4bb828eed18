// Joins the family tables and looks overrides up.
#include <algorithm>
#include <string>
#include <vector>

#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {
namespace {

std::vector<OptimizedOpDef> join_tables() {
  std::vector<OptimizedOpDef> all;
  for (auto table : {matmul_optimized_ops(), conv_optimized_ops(), attention_optimized_ops(), norm_optimized_ops(),
                     elementwise_optimized_ops(), pool_optimized_ops(), resize_optimized_ops(), shape_optimized_ops(),
                     recurrent_optimized_ops()}) {
    all.insert(all.end(), table.begin(), table.end());
  }
  return all;
}

const std::vector<OptimizedOpDef>& table() {
  static const std::vector<OptimizedOpDef> all = join_tables();
  return all;
}

}  // namespace

const OptimizedOpDef* find_optimized_op(std::string_view domain, std::string_view op_type, std::int64_t opset) {
  if (domain == "ai.onnx") domain = "";
  for (const OptimizedOpDef& def : table()) {
    if (def.domain == domain && def.op_type == op_type && opset >= def.min_opset && opset <= def.max_opset) {
      return &def;
    }
  }
  return nullptr;
}

std::span<const OptimizedOpDef> all_optimized_ops() { return table(); }

}  // namespace onemodel::opt
