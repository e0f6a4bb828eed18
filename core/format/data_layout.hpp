// Where the writer puts each tensor's bytes in the data region (spec/format.md section 1.3):
// graph initializers, then each sparse initializer's values and indices, then the tensors of
// each node's attributes in node order (descending into subgraphs in place), then the same for
// each function's nodes and attribute defaults. Each tensor gets its own bytes, 64-byte aligned.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "onemodel/ir.hpp"

namespace onemodel {

struct TensorPlacement {
  std::uint64_t offset = 0;  // within the data region; 0 for tensors without bytes
  std::uint64_t length = 0;
};

struct DataLayout {
  std::unordered_map<const IrTensor*, TensorPlacement> placements;  // every non-string tensor
  std::vector<const IrTensor*> order;                               // tensors with bytes, by offset
  std::uint64_t data_length = 0;                                    // end of the last tensor
};

// Checks each tensor's bytes against its dims and dtype (a writer never produces a file its
// reader refuses). Throws ModelError naming the tensor.
DataLayout plan_data_layout(const IrModel& model);

}  // namespace onemodel
