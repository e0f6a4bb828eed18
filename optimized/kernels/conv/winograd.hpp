// 3x3 unstrided convolutions by Winograd's minimal filtering F(2x2, 3x3), fast mode only
// (docs/design.md "Winograd convolution in fast mode"). Each 2 x 2 block of outputs of a channel
// is A^T [ sum over c of (G g G^T) * (B^T d B) ] A, with d the 4 x 4 input patch of channel c, g
// its 3 x 3 filter and * the element-wise product: sixteen matrix products Cout x Cin x tiles
// (one per element of the 4 x 4 transformed patch) stand for the convolution's Cout x 9 Cin x
// outputs product, 16 / 36 of its multiply-adds. The transforms add and subtract inputs before
// the products and outputs after them, so the results are not the direct sum's bits: exact mode
// never takes this path (exact-mode.md "Convolution" fixes one order per output). Fast mode's
// promise holds: the same bits for any thread count (a fixed tile order, each product's own
// fixed order over c, the transforms per element), and the error stays within a small multiple
// of the direct sum's (the transforms' constants are 0, +-1 and +-1/2, kernels-gemm.md
// "Accuracy"; checked against a double-precision sum by the tests).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {

// The transformed patch's 4 x 4 elements, one product each.
inline constexpr std::size_t kWinogradElements = 16;

// The 2 x 2 output tiles down and across a map (a last partial tile counts).
inline std::size_t winograd_tile_rows(const Conv2dShape& s) noexcept { return (s.out_h + 1) / 2; }
inline std::size_t winograd_tile_cols(const Conv2dShape& s) noexcept { return (s.out_w + 1) / 2; }

// Whether fast mode on this path runs this shape by Winograd: one group, a 3 x 3 kernel at stride
// 1 and dilation 1, the AVX-512 or AVX2 path, channel counts and maps where it measured faster
// than the product or the direct kernel (winograd.cpp), extents far below the 32-bit range. Never
// in exact mode.
bool winograd_takes(Isa isa, bool exact, const Conv2dShape& shape) noexcept;

// The filters w [Cout, Cin, 3, 3] transformed (G g G^T, computed in double and rounded once) and
// packed as the products' A: element e of every (output, input) channel pair forms the Cout x
// Cin matrix of product e.
std::vector<PackedA> winograd_pack_weights(Isa isa, const Conv2dShape& shape, const float* w);

// How a call cuts each image's tile rows (each 2 output rows) into blocks: the block's transformed
// inputs and products live in the workspace while its sixteen products run (winograd.cpp).
// `parallel`: each chunk is one (image, block), run by one thread from the input transform to the
// output transform in a workspace slot of its own (one per thread), so nothing a thread writes is
// read by another; else the blocks run one after the other, the threads sharing each step
// (channels of the transforms, the sixteen products). Every output is the same arithmetic on the
// same values however the tiles are cut and whoever runs them, so neither the blocks nor the
// thread count change a bit.
struct WinogradBlocks {
  std::size_t rows = 1;      // tile rows a block (the last may have fewer)
  std::size_t count = 1;     // blocks an image
  bool parallel = false;
  std::size_t floats = 0;    // one block's workspace
  std::size_t workspace = 0; // the call's: one block, or one a thread when parallel
};
WinogradBlocks winograd_blocks(const Conv2dShape& shape, std::size_t threads) noexcept;

// The distance in floats between consecutive elements' matrices of `floats` floats each in the
// workspace: whole 64-byte lines, an odd number of them, so that the sixteen matrices a transform
// writes or reads at once start in sixteen different sets of a 4 KB-periodic first-level cache
// (with an even distance they fell into as few as four).
std::size_t winograd_element_stride(std::size_t floats) noexcept;

// Workspace slots for blocks run in parallel, one a thread (winograd_run.hpp): a chunk takes a
// free one for its block and gives it back. A thread asks first for the slot it had last, so the
// transformed inputs and products it writes are in its own caches: a line last read by another
// core costs a coherence round trip to write (the shared steps' workspace did, and 128 -> 32 at
// 56 x 56 took 2.6 ms at two threads against 1.3 at one). At most as many chunks run at once as
// the pool has threads (<= 64).
class WinogradSlots {
 public:
  // `count` slots (1 to 64); the bits past them count as taken, so a slot remembered from a call
  // with more threads (another session's pool, the same calling thread) is never handed out.
  explicit WinogradSlots(std::size_t count) noexcept;
  std::size_t take() noexcept;
  void give(std::size_t slot) noexcept;

 private:
  std::atomic<std::uint64_t> used_;
};

#if defined(__x86_64__)
// x: [batch, Cin, in_h, in_w]; packed: winograd_pack_weights; bias: [Cout] or nullptr; y: [batch,
// Cout, out_h, out_w]; `activation` as conv2d_f32's, applied to finished rows; `workspace`:
// winograd_blocks(shape, the pool's threads).workspace floats, or nullptr for a buffer of the
// calling thread's that only grows (reused by every layer the thread runs, so it stays in the
// caches; like the product's packing space it is not charged to a run's memory limit). Requires
// a machine with the path's instructions (AVX-512, or AVX2 with FMA) and winograd_takes.
//
// Returns false when an output came out NaN (before the activation): then y is to be computed
// again by the direct sum. An infinite input or weight reaches several transformed values with
// both signs, and the output transform's sums turn them into NaN where the direct sum gives an
// infinity; a NaN input gives NaN either way, and the direct sum then decides. Finite operands
// whose sums stay finite never take the second pass.
bool winograd_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& shape, const float* x,
                                 const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                                 const ConvActivation* activation);
// The same on the AVX2 path: eight tiles a vector. The transforms' operations per value are the
// AVX-512 path's, in the same order.
bool winograd_conv2d_f32__avx2(const KernelContext& context, const Conv2dShape& shape, const float* x,
                               const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                               const ConvActivation* activation);
// The path's kernel for context.isa (AVX-512 or AVX2; winograd_takes refuses the others).
bool winograd_conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x,
                         const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                         const ConvActivation* activation);
#endif

}  // namespace onemodel::opt
