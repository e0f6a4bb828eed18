// Driver of the Concat copy (optimized/kernels/concat/concat.hpp). The output is cut into pieces
// of kPieceBytes (a function of the shape only); a piece copies, row by row, its intersection with
// each input's block, so one large block (the detector joins four 1 x C x H x W maps on C: one
// row) is spread over the threads as well as many small rows are.
#include "optimized/kernels/concat/concat.hpp"

#include <cstring>

namespace onemodel::opt::concat {
namespace {

constexpr std::size_t kPieceBytes = 256 * 1024;
constexpr double kNanosecondsPerByte = 0.1;

}  // namespace

void concat_bytes(const KernelContext& context, const ConcatInput* inputs, std::size_t count, std::size_t outer,
                  std::byte* dst) {
  std::size_t row = 0;
  for (std::size_t i = 0; i < count; ++i) row += inputs[i].block;
  const std::size_t total = outer * row;
  if (total == 0) return;
  const std::size_t pieces = (total + kPieceBytes - 1) / kPieceBytes;
  context.parallel_for(pieces, kNanosecondsPerByte * static_cast<double>(total), [&](std::size_t piece) {
    const std::size_t lo = piece * kPieceBytes;
    const std::size_t hi = lo + kPieceBytes < total ? lo + kPieceBytes : total;
    for (std::size_t o = lo / row; o * row < hi; ++o) {
      std::size_t column = 0;  // byte position of input i's block inside row o
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t start = o * row + column;  // the block's bytes in the output: [start, start + block)
        const std::size_t from = start > lo ? start : lo;
        const std::size_t to = start + inputs[i].block < hi ? start + inputs[i].block : hi;
        if (from < to) {
          std::memcpy(dst + from, inputs[i].data + o * inputs[i].block + (from - start), to - from);
        }
        column += inputs[i].block;
      }
    }
  });
}

}  // namespace onemodel::opt::concat
