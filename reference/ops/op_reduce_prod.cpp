// ReduceProd: spec/ops/norms.md section 6: sequential product from 1 over the reduced tuples in
// row-major order (integers wrap); an empty reduction gives 1.
// Opsets: ReduceProd_1 reads the axes attribute (opsets 1-17), ReduceProd_18 the axes input.
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_reduce_prod_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ProdKernel>(node, reduce::AxesFrom::Attribute, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_prod_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::ProdKernel>(node, reduce::AxesFrom::Input, reduce::all_types());
}

}  // namespace onemodel
