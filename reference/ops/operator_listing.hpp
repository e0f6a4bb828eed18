// The machine-readable list of operators served (spec/operators.tsv), made from the operator
// table itself so the two cannot drift apart (spec/operator-contract.md section 1).
#pragma once

#include <string>

namespace onemodel {

// One header line, then one line per table row in table order:
// domain, operator, first opset, last opset, element types, exact. `element_types` is the row's
// OpDef::element_types: the space-separated element types (dtype_name()) of the main input, `any`
// for every stored type, or `unstated` for a row that gives none. `exact` is `yes` or `no` as the
// kernel made for a node without attributes reports it, or `attribute-dependent` when such a node
// is refused (the factory needs attributes, and exactness may follow from them).
std::string operators_tsv();

}  // namespace onemodel
