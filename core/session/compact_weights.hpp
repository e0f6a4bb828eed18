// Compact weights (spec-source fp16.md, "Keeping binary32 weights compact"; spec/session.md
// section 9): the constant binary32 weights of MatMul, Gemm and Conv rounded to binary16 or
// bfloat16 when a session is created, marked IrTensor::compact, their binary32 bytes dropped.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel {

// The fewest values a weight must have to be compacted (fp16.md: "at least 1024 values").
inline constexpr std::int64_t kCompactMinValues = 1024;

// What compact_weights did, for tests and the command line.
struct CompactionReport {
  std::size_t compacted = 0;       // tensors rounded and marked
  std::size_t kept_float32 = 0;    // eligible, but left binary32 (binary16: a value beyond 65504)
  std::size_t bytes_before = 0;    // binary32 bytes of the compacted tensors
  std::size_t bytes_after = 0;     // their 16-bit bytes
};

// True when `initializer` of the top-level graph is a weight the option may compact: float32
// with at least kCompactMinValues values, input 1 of a MatMul, Gemm or Conv of the default
// domain, read by that one input only (no other node, no subgraph, no second input slot), not a
// graph input (an overridable default) and not a graph output.
bool is_compactable_weight(const IrGraph& graph, const IrTensor& initializer);

// Rounds every compactable weight of model.graph to `storage` (tensors.md section 10, round to
// nearest even), sets compact = true and replaces its bytes by the 16-bit copy, dropping the
// binary32 view (and the file's resident pages under it). Binary16: a tensor with a NaN, an
// infinity or any |x| > 65504 stays binary32 (fp16.md). Original: nothing changes. The graph must
// be resolved (IrValue::consumers).
CompactionReport compact_weights(IrModel& model, WeightStorage storage);

// The owner of a compact weight's bytes in the IR: the 16-bit tensor itself.
struct CompactBytes {
  explicit CompactBytes(Tensor t) : tensor(std::move(t)) {}
  ~CompactBytes();
  CompactBytes(const CompactBytes&) = delete;
  CompactBytes& operator=(const CompactBytes&) = delete;
  Tensor tensor;
};

// The tensor compact_weights made for `tensor` (sharing its buffer), when its bytes are still
// those; nullopt otherwise (a compact weight read from a file is copied as any initializer).
// tensor_from_ir uses it so the engines do not hold a second 16-bit copy.
std::optional<Tensor> shared_compact_tensor(const IrTensor& tensor);

// Checks the compact marks of a model read from a file (untrusted input, spec/format.md section
// 2.5): a tensor marked compact must be a float16 or bfloat16 initializer of the top-level graph
// read only as input 1 of MatMul, Gemm or Conv. Returns "" when every mark is valid, else the
// reason naming the first bad tensor; `index` is then its position in graph.initializers (or -1
// for a mark outside them: a subgraph, a sparse tensor, an attribute).
std::string check_compact_marks(const IrModel& model, std::ptrdiff_t& index);

}  // namespace onemodel
