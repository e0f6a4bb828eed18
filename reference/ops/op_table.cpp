// The one static table of operators (spec/operator-contract.md section 1): (domain, op type,
// opset range) -> factory. Each family keeps its rows in reference/ops/table_<family>.cpp so the
// families can grow independently; this file joins them and answers lookups. Nothing registers
// itself.
#include <string_view>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {
namespace {

const std::vector<OpDef>& table() {
  static const std::vector<OpDef> all = [] {
    std::vector<OpDef> rows;
    for (auto family : {elementwise_ops(), norm_ops(), shape_ops(), conv_ops(), recurrent_ops(), attention_ops(),
                        loss_ops(), quant_ops(), control_ops(), spectral_ops(), training_ops(), ml_ops(), image_ops(),
                        string_ops(), random_ops()}) {
      rows.insert(rows.end(), family.begin(), family.end());
    }
    return rows;
  }();
  return all;
}

bool same_domain(std::string_view a, std::string_view b) {
  auto canonical = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  return canonical(a) == canonical(b);
}

}  // namespace

const OpDef* find_op(std::string_view domain, std::string_view op_type, std::int64_t opset) {
  for (const OpDef& def : table()) {
    if (op_type == def.op_type && same_domain(domain, def.domain) && opset >= def.min_opset &&
        opset <= def.max_opset) {
      return &def;
    }
  }
  return nullptr;
}

std::span<const OpDef> all_ops() { return table(); }

}  // namespace onemodel
