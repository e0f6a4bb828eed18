// The half-precision adapter (spec/half-precision.md section 8, from spec-source fp16.md "Models
// stored in half precision"): a node with float16 or bfloat16 inputs runs its binary32 kernel on
// widened inputs and rounds the binary32 outputs back to the node's storage type. Both engines
// get it from make_kernels(), so a half model means the same in both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/ir.hpp"

namespace onemodel {

// What the scan at session creation found (section 8.1).
struct HalfScan {
  // A float16 or bfloat16 value other than a compact weight: an initializer, a declared graph
  // input, output or value_info, a Cast to either type, a Constant or ConstantOfShape holding one.
  bool half_values = false;
  // An initializer marked compact (IrTensor::compact).
  bool compact_weights = false;
};
HalfScan scan_half_precision(const IrGraph& graph);

// How an engine runs the adapter (section 8.2 and 8.7). The reference engine: the literal rules,
// binary16 Add/Sub/Mul/Div by their own kernel, scalar conversions. The optimized engine may widen
// those four too (the same bits: one binary32 operation on binary16 operands, rounded once to
// binary16, is the correctly rounded binary16 result) and convert with its vector paths.
struct HalfAdapterOptions {
  bool binary16_arithmetic_native = true;
  // Bulk conversions with exactly the bits of onemodel/half.hpp; empty: the scalar ones.
  std::function<void(const std::uint16_t*, float*, std::size_t, bool bfloat16)> widen;
  std::function<void(const float*, std::uint16_t*, std::size_t, bool bfloat16)> narrow;
};

// The kernel the adapter wraps when `kernel` is an adapter, else `kernel` itself: the optimized
// engine's passes recognise a node by its binary32 kernel (spec/half-precision.md section 8.6).
const OpKernel& unwrap_half_adapter(const OpKernel& kernel) noexcept;

// A new adapter around `inner` with the compact-weight marks and options of `adapter`, which must
// be an adapter (else std::invalid_argument): a pass that fuses a wrapped node with its reader
// wraps the fused kernel the same way (spec/half-precision.md section 8.6).
std::unique_ptr<OpKernel> rewrap_half_adapter(const OpKernel& adapter, std::unique_ptr<OpKernel> inner);

// True for operators the adapter never wraps (section 8.3): they see the real element types.
bool never_half_wrapped(const IrNode& node, const OpKernel& kernel, const char* element_types);

// `kernel` for `node`, wrapped when the scan asks for it (section 8.2): every wrappable node of a
// model with half values; in a model whose only 16-bit tensors are compact weights, the nodes
// reading one whose kernel does not widen it itself. Otherwise `kernel` unchanged.
std::unique_ptr<OpKernel> adapt_for_half_precision(std::unique_ptr<OpKernel> kernel, const IrGraph& graph,
                                                   const IrNode& node, const HalfScan& scan,
                                                   const char* element_types, const HalfAdapterOptions& options);

}  // namespace onemodel
