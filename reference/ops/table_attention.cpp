// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).

std::span<const OpDef> attention_ops() {
  static const std::vector<OpDef> rows = {
  };
  return rows;
}

}  // namespace onemodel
