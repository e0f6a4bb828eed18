// The random operators (spec/ops/random.md). Each row's factory lives in reference/ops/op_<name>.cpp;
// Dropout, whose training mode draws too, stays with the shape operators (table_shape.cpp).
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_random_uniform(const NodeInfo&);
std::unique_ptr<OpKernel> make_random_normal(const NodeInfo&);
std::unique_ptr<OpKernel> make_random_uniform_like(const NodeInfo&);
std::unique_ptr<OpKernel> make_random_normal_like(const NodeInfo&);
std::unique_ptr<OpKernel> make_bernoulli(const NodeInfo&);
std::unique_ptr<OpKernel> make_multinomial(const NodeInfo&);

std::span<const OpDef> random_ops() {
  // RandomUniform and RandomNormal have no input: their rows list the types `dtype` may give (as
  // Constant's row lists its value's). The Like forms list the input types they serve without
  // `dtype` (with it, any input type: only its shape is read).
  static const std::vector<OpDef> rows = {
      {"", "RandomUniform", 1, 27, make_random_uniform, "F32 F64 F16 BF16"},
      {"", "RandomNormal", 1, 27, make_random_normal, "F32 F64 F16 BF16"},
      {"", "RandomUniformLike", 1, 27, make_random_uniform_like, "F32 F64 F16 BF16"},
      {"", "RandomNormalLike", 1, 27, make_random_normal_like, "F32 F64 F16 BF16"},
      {"", "Bernoulli", 15, 27, make_bernoulli, "F32 F64 F16 BF16"},
      {"", "Multinomial", 7, 27, make_multinomial, "F32 F64 F16 BF16"},
  };
  return rows;
}

}  // namespace onemodel
