// The float32 matrix product's blocking, threading and dispatch (kernels-gemm.md, "Structure"
// and "Fixed chunks and thread independence"); the arithmetic is in the microkernels
// (gemm_micro_*.cpp), the layouts in gemm_pack.cpp.
//
// One call: pack B for all of k and n (chunks of 8 strips per k-block; skipped when B is read in
// place, see reads_b_in_place), then one chunk per
// tile of C: MC (or a band of it) x NC, see tile_shape. A tile walks k in blocks of the path's KC
// (Path::kc: 256, 512 on AVX-512); per block it takes its packed A block
// and runs the microkernel over every NR strip of B and, inside, every MR strip of A. Every
// output is computed by one tile, with the whole of k in increasing order, so neither the tile
// order nor the thread that runs a tile can change it.
#include "optimized/kernels/gemm/gemm.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "optimized/kernels/gemm/gemm_buffer.hpp"
#include "optimized/kernels/gemm/gemm_pack.hpp"
#include "optimized/kernels/gemm/gemm_path.hpp"

namespace onemodel::opt {

void PackedB::FreeAligned::operator()(float* p) const noexcept { gemm::free_aligned_floats(p); }
void PackedA::FreeAligned::operator()(float* p) const noexcept { gemm::free_aligned_floats(p); }

namespace gemm {
namespace {

// kernels-gemm.md, "Fixed chunks and thread independence": kMultiplyAddsPerNs (gemm.hpp) for the
// tiles, half a nanosecond per element packed.
constexpr double kNsPerPackedElement = 0.5;

struct Problem {
  const Path* path;
  bool exact;
  std::size_t m, n, k;
  MatrixView a;
  const float* packed_a;  // A packed whole (PackedA), or nullptr: the tiles pack it
  const float* packed_b;  // B packed whole, or nullptr: B is read in place (b_in_place) or filled
  MatrixView b_in_place;
  const BStripSource* b_source;  // per strip when not packed whole (gemm_f32_packed_a_sourced)
  const AStripSource* a_source;  // packs A's blocks when A is not a view (gemm_f32_sourced)
  float* c;
  std::ptrdiff_t ldc;
  const GemmEpilogue* epilogue;
  std::uint64_t call_id;  // tells this call's packed A panels from an earlier call's
  std::size_t nc;         // the tile width of this call (tile_shape)
  std::size_t band;       // the rows of a tile: MC, or a multiple of MR dividing it (tile_shape)
  bool prefetch_b = false;  // B was packed before the call (weights): NextStripPrefetch
  bool ask_b_ahead = false;  // B in place, written well before the call: ask_for_in_place_strip
};

// Each call gets its own id, so a thread's cached A panel is never taken for another call's.
std::atomic<std::uint64_t> next_call_id{1};

// The packed A of one tile row (MC rows, all of k, block after block), kept by the thread that
// packed it: the tiles of one row share it, so A is packed about once per row and thread rather
// than once per tile. Packing only moves values, so this cannot change a result.
struct APanelCache {
  GrowingBuffer buffer;
  std::uint64_t call_id = 0;
  std::size_t row0 = 0;           // the first row of the panel (a tile's band of rows)
  std::size_t blocks_packed = 0;  // k-blocks of the panel packed so far, in order
};

thread_local APanelCache a_panel;
thread_local GrowingBuffer b_packing;
// The widest NR of any path (AVX-512); the ragged strip of an in-place B is packed on the stack.
constexpr std::size_t kMaxNr = 32;

// B is read in place, without packing, when its rows are contiguous and the product has a single
// tile row (m <= MC): every B value is then used by one tile only (or by one per band, when
// tile_shape bands a small m > n product), so packing would copy all of B once to read it once more (for a 1x1 convolution with few filters over a large map that copy
// cost as much as the product). The microkernel reads the same values in the same order from
// either layout, so no result changes (kernels-gemm.md, "Fixed chunks and thread independence").
bool reads_b_in_place(const Path& path, std::size_t m, std::size_t k, MatrixView b) noexcept {
  return k > 0 && b.col_stride == 1 && m <= path.mc;
}

std::size_t tile_cols(const Problem& pr) noexcept { return strip_count(pr.n, pr.nc); }
// Row bands of the call: `band` divides MC, so every band lies inside one tile row of the packed A.
std::size_t row_bands(const Problem& pr) noexcept { return strip_count(pr.m, pr.band); }

// The tiles of one call: NC columns (wider for a small k, see below) by a band of rows (MC at
// most), made smaller while the
// product has fewer than kMinTiles tiles, so that a small product (the 7x7 and 14x14 layers of a
// convolutional network at batch 1) still gives every thread a share. Which side shrinks follows
// the larger operand: a tile re-reads its A rows once per column tile and its B columns once per
// band, so where A (m x k) is the larger, as for the weights of a late convolution layer (512
// filters against a 7x7 map), the rows are cut into bands of a multiple of MR that divides MC,
// each read by one tile only; otherwise the width is halved (kept a multiple of NR, never below
// NR), as for the tokens of a transformer against its weights, and rows are banded only once the
// width is down to NR. Before bands, NC alone was halved:
// a 512 x 49 x 4608 convolution product then had column tiles of 32 and 17, each reading the
// whole 9 MB of weights.
//
// The shape is chosen from m, n and the path alone, never from the thread count. The order of
// every output's sum does not depend on the tile shape (kernels-gemm.md, "Fast mode": not on the
// tile shape): an output is one microkernel accumulator over the same k-blocks either way, and a
// band starts on a strip of MR rows of the same packed A, so no result changes with it in exact
// mode; in fast mode an epilogue activation may hand over from vector body to tail at other
// columns, which still depends only on the shape.
constexpr std::size_t kMinTiles = 8;

struct TileShape {
  std::size_t nc;
  std::size_t band;
};

// A large product (2^25 multiply-adds, about 0.4 ms on one core) with few tiles is cut finer: two
// threads claiming 11 or 12 tiles of unequal size (a last band of 32 of 512 rows, a last column
// tile of 68 of 196) left one waiting for the other's last tile. ResNet-18's 256 x 196 x 2304 and
// 512 x 49 x 4608 convolution products in bands of 24 rows (22 tiles) instead of 48: two threads
// 992 -> 901 us and 1055 -> 978 us, one thread unchanged (session 23, Intel Xeon model 207, one
// Conv+Relu models alternated); ResNet-18 two-thread node sum 0.95-0.96x, MnasNet, SqueezeNet,
// DenseNet, ViT, ConvNeXt within noise (their products are smaller or already have 16 tiles).
// Like every tile shape it depends on m, n, k and the path only: the same bits.
constexpr std::size_t kMinTilesLarge = 16;
constexpr std::size_t kLargeMultiplyAdds = std::size_t{1} << 25;

// Below this many multiply-adds (about 6 us on one core) a product is not shared by the pool
// (ThreadPool::kNanosecondsPerThread), so it keeps whole tile rows: a squeeze-and-excitation 1x1
// convolution on a 1x1 map (168 x 1 x 672) cut into 14 bands of 12 rows took a quarter longer.
constexpr std::size_t kMinBandedMultiplyAdds = std::size_t{1} << 18;

// A tile's B block is one k-block by NC columns. With few rows of k (a 1x1 convolution from 16 or
// 24 channels over a 112 x 112 map) that block is small and the tile's fixed costs -- one
// epilogue call per row of C, its band loop, short row pieces of C written far apart -- weigh on
// little arithmetic: a 16 -> 96 1x1 convolution with bias and activation took 30% less time with
// 512 columns than with 128 (Intel Xeon, session 19). So NC doubles, at most kMaxWidening times
// the path's, while the doubled block still holds at most kWideBlockFloats (32 KB, within L1):
// k = 16 gets 4 x NC, k = 24 or 32 2 x NC, k >= 64 keeps NC.
constexpr std::size_t kWideBlockFloats = 8192;
constexpr std::size_t kMaxWidening = 4;

TileShape tile_shape(const Path& path, std::size_t m, std::size_t n, std::size_t k) noexcept {
  TileShape shape{path.nc, path.mc};
  const std::size_t kc = std::min(k, path.kc);
  while (kc > 0 && 2 * shape.nc * kc <= kWideBlockFloats && 2 * shape.nc <= kMaxWidening * path.nc) shape.nc *= 2;
  const auto tiles = [&] { return strip_count(m, shape.band) * strip_count(n, shape.nc); };
  const bool rows_first = m > n;
  const double multiply_adds = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const bool worth_banding = multiply_adds >= static_cast<double>(kMinBandedMultiplyAdds);
  const bool large = multiply_adds >= static_cast<double>(kLargeMultiplyAdds);
  while (tiles() < (large ? kMinTilesLarge : kMinTiles)) {
    const std::size_t narrower_band = shape.band / 2 / path.mr * path.mr;
    const bool can_band = worth_banding && narrower_band >= path.mr && path.mc % narrower_band == 0;
    const bool can_narrow = shape.nc > path.nr;
    if (rows_first && can_band) {
      shape.band = narrower_band;
    } else if (can_narrow) {
      shape.nc = std::max(path.nr, shape.nc / 2 / path.nr * path.nr);
    } else if (can_band) {
      shape.band = narrower_band;
    } else {
      break;
    }
  }
  return shape;
}

// With B packed once (constant weights) and A packed by the tiles (a Linear layer's tokens), a band
// is not tied to the MC rows of a PackedA layout, and every band reads all of B: 128 tokens made a
// band of 96 and one of 32, 197 tokens three (96, 96, 5), each streaming the 2.4 to 9.4 MB of a
// transformer layer's weights from memory again. Bands of up to kWideBandRows rows, split evenly
// (a multiple of MR), read B once for m <= 264 and twice up to 528; their A block (264 x 256
// floats, 270 KB) stays in the second-level cache while the B strips stream through the first.
// Session 21, Intel Xeon (model 207), one thread, weights cycled through 8 copies as in a model:
// 128 x 3072 x 768 0.85-0.88x the time, 128 x 768 x 3072 0.84-0.90x, two threads 0.81-0.88x;
// 197 x 1536 x 384, 256 and 512 rows unchanged within noise. As with tile_shape, the bands depend
// on m, n and the path only, and every output keeps its one sequence over the same k-blocks (the
// tile packs the band's rows into strips of MR from its first row): the same bits.
constexpr std::size_t kWideBandRows = 264;

// m rows in bands of at most kWideBandRows, split evenly, each a multiple of MR, `nc` columns
// wide; the tiles then narrow (a multiple of NR, never below it) while the call has fewer than
// kMinTiles of them, as tile_shape would.
TileShape even_wide_bands(const Path& path, std::size_t m, std::size_t n, std::size_t nc) noexcept {
  const std::size_t bands = strip_count(m, kWideBandRows);
  TileShape wide{nc, strip_count(strip_count(m, bands), path.mr) * path.mr};
  while (strip_count(m, wide.band) * strip_count(n, wide.nc) < kMinTiles && wide.nc > path.nr) {
    wide.nc = std::max(path.nr, wide.nc / 2 / path.nr * path.nr);
  }
  return wide;
}

TileShape wide_band_shape(const Path& path, std::size_t m, std::size_t n, TileShape shape) noexcept {
  if (m <= path.mc || shape.band != path.mc) return shape;
  return even_wide_bands(path, m, n, shape.nc);
}

// With A packed once (a convolution's weights) and B filled strip by strip from a source (its
// im2col matrix, never stored), a product of more than one band of rows filled all of B into a
// buffer first (k x n floats: 29 MB for a 64 -> 128 3x3 convolution at 112 x 112), written to
// memory and read back once per band, since a strip filled per tile would be filled once per band.
// A band of up to kWideBandRows rows (split evenly, a multiple of MR: the packed layout has every
// band's strips in one run, packed_a_offset) fills each strip once, into a buffer the tile reads
// from L1, for all of a layer's filters; its A block (at most 264 x 256 floats) stays in L2. The
// tiles narrow (a multiple of NR) to keep kMinTiles of them for the threads; where even that falls
// short (a small map: few columns), tile_shape's bands and the whole-B fill stay, a small buffer
// there. The shape depends on m, n and the path only, and every output keeps its one sequence over
// the same k-blocks: the same bits.
TileShape sourced_band_shape(const Path& path, std::size_t m, std::size_t n, TileShape shape) noexcept {
  if (m <= shape.band) return shape;
  const TileShape wide = even_wide_bands(path, m, n, std::max(shape.nc, path.nc));
  return strip_count(m, wide.band) * strip_count(n, wide.nc) >= kMinTiles ? wide : shape;
}

// The B strip of columns [col0 + j, col0 + j + NR) for k-block p0 and its row stride: packed, a
// full strip read in place, or the ragged last strip of an in-place B packed alone into
// `edge_strip` (reading past the row would leave B on its last row), zero-padded as the whole-B
// packing would have it.
const float* b_strip_at(const Problem& pr, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid_cols,
                        float* edge_strip, std::ptrdiff_t& ldb) {
  const std::size_t nr = pr.path->nr;
  ldb = static_cast<std::ptrdiff_t>(nr);
  if (pr.packed_b != nullptr) return pr.packed_b + packed_b_offset(pr.k, pr.n, nr, pr.path->kc, p0, col / nr);
  if (pr.b_source != nullptr) {
    pr.b_source->fill(pr.b_source->state, p0, kc, col, valid_cols, nr, edge_strip);
    return edge_strip;
  }
  if (valid_cols == nr) {
    ldb = pr.b_in_place.row_stride;
    return pr.b_in_place.data + static_cast<std::ptrdiff_t>(p0) * ldb + static_cast<std::ptrdiff_t>(col);
  }
  pack_b_strip(pr.b_in_place, pr.n, p0, kc, col, nr, edge_strip);
  return edge_strip;
}

// A B read in place (a 1x1 convolution's input: k rows a map's plane apart) reaches the
// microkernel a strip at a time, kc rows of NR columns, each row 128 bytes on its own page: more
// short streams than the hardware prefetchers follow, so where the input has left the second-level
// cache (a batch of images, a 56 x 56 x 256 map) every row of the strip waits for memory. When the
// caller says B was written well before the call (gemm_f32_packed_a's b_from_memory), the tile's
// first A strip asks for the next strip's lines (after its last, the next tile's first, which this
// thread most likely takes next) before it runs the current one, whose kc steps then cover the
// wait. Session 42, Intel Xeon (model 167), alternated rows (ab_rows.py, ms): ResNet-50 at batch 8
// one thread 532 -> 488 (exact 851 -> 837), two threads 282 -> 273; at batch 1 66.4 -> 63.8 (exact
// 109.9 -> 107.1); SqueezeNet at batch 8 64.5 -> 60.4; EfficientNet-B0 at batch 8 100.5 -> 95.1;
// MnasNet, DenseNet-121, GoogLeNet and SqueezeNet at batch 1 within noise. Per node, SqueezeNet's
// 128 -> 16 1x1 layer over 55 x 55 took 1831 -> 964 us at batch 8 and 207 -> 149 at batch 1. Into
// L1 (prefetcht0): asking for the second level only (prefetcht1) gained less. Only a hint to the
// caches: no value changes. Always inlined: GCC's interprocedural analysis takes a function that
// only asks for lines for one without effects and drops its calls (GCC 12, -O3; seen in the
// object code: the first build of this had no prefetch instruction left).
[[gnu::always_inline]] inline void ask_for_in_place_strip(const Problem& pr, std::size_t p0, std::size_t kc, std::size_t col) noexcept {
  if (!pr.ask_b_ahead || pr.packed_b != nullptr || pr.b_source != nullptr || col >= pr.n) return;
  constexpr std::size_t kLineFloats = 16;  // 64-byte lines
  const std::size_t cols = std::min(pr.path->nr, pr.n - col);
  const std::ptrdiff_t ld = pr.b_in_place.row_stride;
  const float* first = pr.b_in_place.data + static_cast<std::ptrdiff_t>(col);
  for (std::size_t p = p0; p < p0 + kc; ++p) {
    const float* row = first + static_cast<std::ptrdiff_t>(p) * ld;
    for (std::size_t j = 0; j < cols; j += kLineFloats) __builtin_prefetch(row + j, 0, 3);
  }
}

// A tile of one row (m = 1, a Linear layer at batch 1): the row kernel over groups of up to
// kRowKernelStrips strips of B, which are kc * NR apart when packed and NR apart in place.
void run_row_block(const Problem& pr, RowKernel row, const float* a_block, std::size_t p0, std::size_t kc,
                   std::size_t cols, std::size_t col0, float* c_tile, float* edge_strip, std::uint32_t flags) {
  const std::size_t nr = pr.path->nr;
  for (std::size_t j = 0; j < cols;) {
    std::size_t span = std::min(kRowKernelStrips * nr, cols - j);
    std::ptrdiff_t step = static_cast<std::ptrdiff_t>(kc * nr);
    if (pr.b_source != nullptr) {
      span = std::min(nr, cols - j);  // one filled strip at a time
    } else if (pr.packed_b == nullptr) {
      // In place: full strips side by side; the ragged last strip alone (packed).
      const std::size_t full = std::min(kRowKernelStrips, (cols - j) / nr);
      span = full > 0 ? full * nr : cols - j;
      step = static_cast<std::ptrdiff_t>(nr);
    }
    std::ptrdiff_t ldb = 0;
    const float* b = b_strip_at(pr, p0, kc, col0 + j, std::min(nr, span), edge_strip, ldb);
    row(kc, a_block, b, step, ldb, c_tile + j, span, flags);
    j += span;
  }
}

// A tile of one column (n = 1, a 1x1 convolution on a 1 x 1 map): the column kernel over all the
// tile's MR strips of A. Only column 0 of B is read, so an in-place B is read in place.
void run_column_block(const Problem& pr, ColumnKernel column, const float* a_block, std::size_t p0, std::size_t kc,
                      std::size_t rows, std::size_t col0, float* c_tile, float* edge_strip, std::uint32_t flags) {
  const std::size_t mr = pr.path->mr, nr = pr.path->nr;
  const float* b = nullptr;
  std::ptrdiff_t ldb = static_cast<std::ptrdiff_t>(nr);
  if (pr.b_source != nullptr) {
    pr.b_source->fill(pr.b_source->state, p0, kc, col0, 1, nr, edge_strip);
    b = edge_strip;
  } else if (pr.packed_b != nullptr) {
    b = pr.packed_b + packed_b_offset(pr.k, pr.n, nr, pr.path->kc, p0, col0 / nr) + col0 % nr;
  } else {
    ldb = pr.b_in_place.row_stride;
    b = pr.b_in_place.data + static_cast<std::ptrdiff_t>(p0) * ldb + static_cast<std::ptrdiff_t>(col0);
  }
  column(kc, a_block, mr * kc, strip_count(rows, mr), b, ldb, c_tile, pr.ldc, rows, 1, flags);
}

// The ragged last strip of B for one MR strip of A (valid_cols < NR): NR / 2 columns at a time with
// the narrow kernel instead of the whole MR x NR block. Where the path has them, a strip of NR / 2 +
// 1 to NR / 2 + 4 columns runs the narrow tail kernel in one pass (a 7 x 7 map keeps 17 columns of
// its second 32-wide strip) and a piece of at most NR / 2 - 4 columns the half-narrow kernel (a 13 x
// 13 map's last strip keeps 9 columns, which the narrow kernel computed as 16). Otherwise the last
// one to four columns never reach here: run_rows gives them to the column kernel for all its strips
// at once (column_tail). Each output keeps the microkernel's sequence, so the bits are the same.
void run_ragged_columns(const Problem& pr, NarrowKernel narrow, NarrowKernel half_narrow, NarrowKernel narrow_tail,
                        std::size_t kc, const float* a_strip, const float* b_strip, std::ptrdiff_t ldb, float* c_block,
                        std::size_t valid_rows, std::size_t valid_cols, std::uint32_t flags) {
  const std::size_t half = pr.path->nr / 2;
  if (narrow_tail != nullptr && valid_cols > half && valid_cols <= half + kColumnKernelCols) {
    return narrow_tail(kc, a_strip, b_strip, ldb, c_block, pr.ldc, valid_rows, valid_cols, flags);
  }
  for (std::size_t j = 0; j < valid_cols;) {
    const std::size_t cols = std::min(half, valid_cols - j);
    const bool halves = half_narrow != nullptr && cols + kColumnKernelCols <= half;
    (halves ? half_narrow : narrow)(kc, a_strip, b_strip + j, ldb, c_block + j, pr.ldc, valid_rows, cols, flags);
    j += cols;
  }
}

// The B strip a tile reads first from each k-block comes from memory or the last-level cache (a
// Linear layer's weights, written long before), and the first A strip against it waits for it;
// the next strips of A then find it in L1. Asking for the following strip early, a 1/strips
// slice before each A strip's kernel call, overlaps that fetch with the current strip's arithmetic.
// Intel Xeon (model 207), one thread, weights cycled through 8 copies, medians of 3 alternated
// runs: 128 x 3072 x 768 0.93x, 128 x 768 x 3072 0.94x, 197 x 1536 x 384 0.95x, 128 x 768 x 768
// unchanged (its tiles are two strips wide). Only for a B packed before the call (PackedB): a B
// the call has just packed is already near, and asking for it made MnasNet's 1x1 expansions on
// 14 x 14 maps 1.07x slower. A hint only: no value changes.
// Rows a tile runs against each B strip before the hint pays: with fewer (an LSTM step at batch 8
// has one A strip) the strip is read once, streamed as the hardware prefetcher already does, and
// the hint's burst of requests before one short kernel call made the bidirectional LSTM at batch
// 8 1.055x slower (node sum, alternated, Intel Xeon); with this bound 0.949x of that.
constexpr std::size_t kPrefetchMinRows = 48;
// And only for weights of 1 MiB or more, which other layers push out of the second-level cache
// between calls: DeiT-tiny's 768 x 192 (590 KB) feed-forward output ran 1.08x slower with the
// hint, and with a 2 MiB bound ViT-S/16's 384 x 1152 projections lost it (node sum 1.043x).
constexpr std::size_t kPrefetchMinFloats = std::size_t{1} << 18;

struct NextStripPrefetch {
  const float* strip = nullptr;  // nullptr: nothing to ask for
  std::size_t floats = 0;
  std::size_t slices = 1;

  void slice(std::size_t s) const noexcept {
    if (strip == nullptr) return;
    constexpr std::size_t kLineFloats = 16;  // 64-byte lines
    const std::size_t lines = strip_count(floats, kLineFloats);
    for (std::size_t line = lines * s / slices; line < lines * (s + 1) / slices; ++line) {
      __builtin_prefetch(strip + line * kLineFloats, 0, 2);  // read, into L2 (prefetcht1 on x86-64)
    }
  }
};

// The packed B this thread most likely reads after the tile's strips of k-block p0 (columns
// [col0, col0 + cols)): the tile's next k-block, or after its last the next tile's first block
// (tile_place: with A packed per tile the tiles of a band are consecutive chunks, the ones a
// thread claims together). `whole`: that block's strips for all the tile's columns (the store
// bands read every strip per A strip), else only its first strip (run_rows goes strip by strip,
// and asks for the strips within a block itself). Weights streamed from memory (a transformer's
// feed-forward products, cycled with the other layers) otherwise reached the first A strip of
// each block cold: the tiles of a 197 x 384 x 3072 product are one strip wide, so no strip of
// theirs was asked for ahead.
NextStripPrefetch next_block_prefetch(const Problem& pr, std::size_t p0, std::size_t kc, std::size_t col0,
                                      std::size_t cols, std::size_t rows, bool whole) noexcept {
  const Path& path = *pr.path;
  if (pr.packed_b == nullptr || !pr.prefetch_b || rows < kPrefetchMinRows) return NextStripPrefetch{};
  std::size_t next_p0 = p0 + kc, next_col = col0, next_cols = cols;
  if (next_p0 >= pr.k) {
    next_p0 = 0;
    next_col = col0 + pr.nc;
    if (next_col >= pr.n) return NextStripPrefetch{};
    next_cols = std::min(pr.nc, pr.n - next_col);
  }
  const std::size_t next_kc = std::min(path.kc, pr.k - next_p0);
  const std::size_t strips = whole ? strip_count(next_cols, path.nr) : 1;
  return NextStripPrefetch{pr.packed_b + packed_b_offset(pr.k, pr.n, path.nr, path.kc, next_p0, next_col / path.nr),
                           strips * next_kc * path.nr, strip_count(rows, path.mr)};
}

// The kernels of one call's mode (gemm_path.hpp).
struct BlockKernels {
  MicroKernel kernel;
  ColumnKernel column;
  NarrowKernel narrow;
  ShortKernel short_rows;
  PairKernel pair;
  NarrowKernel narrow_tail;
  NarrowKernel half_narrow;
};

// How many last columns of a ragged B strip (valid_cols < NR) go to the column kernel rather than
// a narrow piece: the one to kColumnKernelCols (4) left after whole NR / 2 pieces, none otherwise,
// and none on paths without those kernels. The narrow kernel spends one vector per row of A on
// them (12 multiply-adds a step on AVX-512); the column kernel one per strip and column (4 for the
// 196th to 192nd columns of a 14 x 14 map, whose last strip keeps 4 of 32).
std::size_t column_tail(const Problem& pr, const BlockKernels& k, std::size_t valid_cols) noexcept {
  if (valid_cols >= pr.path->nr || k.narrow == nullptr || k.column == nullptr) return 0;
  if (k.narrow_tail != nullptr && valid_cols > pr.path->nr / 2) return 0;  // run_ragged_columns takes them
  const std::size_t rest = valid_cols % (pr.path->nr / 2);
  return rest <= kColumnKernelCols ? rest : 0;
}

// One MR x NR block (valid_rows x valid_cols of it inside C) from one A strip and one B strip.
void run_strip_block(const Problem& pr, const BlockKernels& k, std::size_t kc, const float* a_strip,
                     const float* b_strip, std::ptrdiff_t ldb, float* c_block, std::size_t valid_rows,
                     std::size_t valid_cols, float* scratch, std::uint32_t flags) {
  const std::size_t mr = pr.path->mr, nr = pr.path->nr;
  if (valid_rows == mr && valid_cols == nr) return k.kernel(kc, a_strip, b_strip, ldb, c_block, pr.ldc, flags);
  if (k.short_rows != nullptr && valid_cols == nr) {
    return k.short_rows(kc, a_strip, b_strip, ldb, c_block, pr.ldc, valid_rows, flags);
  }
  if (k.narrow != nullptr && k.column != nullptr && valid_cols < nr) {
    return run_ragged_columns(pr, k.narrow, k.half_narrow, k.narrow_tail, kc, a_strip, b_strip, ldb, c_block,
                              valid_rows, valid_cols, flags);
  }
  // kernels-gemm.md step 3: a ragged edge runs the full microkernel on a scratch tile
  // and copies out the valid part.
  if ((flags & kGemmAccumulate) != 0) {
    for (std::size_t r = 0; r < valid_rows; ++r) {
      std::memcpy(scratch + r * nr, c_block + static_cast<std::ptrdiff_t>(r) * pr.ldc, valid_cols * sizeof(float));
    }
  }
  k.kernel(kc, a_strip, b_strip, ldb, scratch, static_cast<std::ptrdiff_t>(nr), flags);
  for (std::size_t r = 0; r < valid_rows; ++r) {
    std::memcpy(c_block + static_cast<std::ptrdiff_t>(r) * pr.ldc, scratch + r * nr, valid_cols * sizeof(float));
  }
}

// The second B strip of a pair when B comes from a strip source (run_block); per thread, grown
// once, so steady-state calls allocate nothing.
thread_local GrowingBuffer pair_strip;

// The rows-first bands of run_block with few k-steps (exact mode, or fast mode without a store
// kernel): each block's products are over before its output lines would arrive from beyond L2, so
// before each block run_rows asks for the output lines, and the epilogue's residual lines, of the
// block `blocks` on in the same rows (the next ones those bands store), as the store kernels do
// in fast mode (gemm_micro_avx512.cpp, fused_store). Addresses formed as integers (past the band's
// last block they may lie beyond C). A hint only: no value changes. Always inlined, as
// ask_for_in_place_strip is, or GCC drops its calls.
struct BandAhead {
  std::size_t row = 0;     // the band's first row of C
  std::size_t blocks = 0;  // 0: nothing asked for
};

[[gnu::always_inline]] inline void ask_for_band_lines(const Problem& pr, const BandAhead& ahead, const float* c_block,
                                                     std::size_t col, std::size_t rows) noexcept {
  constexpr std::size_t kLineFloats = 16;  // 64-byte lines
  const std::size_t nr = pr.path->nr;
  const std::uintptr_t step = ahead.blocks * nr * sizeof(float);
  const auto at = [step](const float* p, std::size_t lane) {
    return reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) + step + lane * sizeof(float));
  };
  const GemmStoreOps* ops = pr.epilogue != nullptr ? pr.epilogue->store : nullptr;
  const float* residual = ops != nullptr ? ops->residual : nullptr;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* c_row = c_block + static_cast<std::ptrdiff_t>(r) * pr.ldc;
    const float* residual_row = residual != nullptr ? residual + (ahead.row + r) * ops->residual_ld + col : nullptr;
    for (std::size_t lane = 0; lane < nr; lane += kLineFloats) {
      __builtin_prefetch(at(c_row, lane), 1, 3);
      if (residual_row != nullptr) __builtin_prefetch(at(residual_row, lane), 0, 3);
    }
  }
}

// A rows [r0, r1) of one k-block against the tile's columns: every NR strip of B and, inside, every
// MR strip of the packed A block (kernels-gemm.md, "Structure" steps 2 and 3). Where the path has a
// pair kernel, two full strips of B at a time go through it (full A strips) instead; a short last
// A strip runs the two strips one by one, the same sequence per output.
void run_rows(const Problem& pr, const BlockKernels& k, const float* a_block, std::size_t p0, std::size_t kc,
              std::size_t r0, std::size_t r1, std::size_t cols, std::size_t col0, float* c_tile, float* scratch,
              float* edge_strip, std::uint32_t flags, const BandAhead& ahead = BandAhead{}) {
  const std::size_t mr = pr.path->mr, nr = pr.path->nr;
  for (std::size_t j = 0; j < cols;) {
    float* c_col = c_tile + static_cast<std::ptrdiff_t>(j);
    if (k.pair != nullptr && cols - j >= 2 * nr && r1 - r0 >= mr) {
      std::ptrdiff_t ldb0 = 0, ldb1 = 0;
      const float* b0 = b_strip_at(pr, p0, kc, col0 + j, nr, edge_strip, ldb0);
      float* second = pr.b_source != nullptr ? pair_strip.reserve(kMaxKc * kMaxNr) : edge_strip;
      const float* b1 = b_strip_at(pr, p0, kc, col0 + j + nr, nr, second, ldb1);
      if (r0 == 0) {
        ask_for_in_place_strip(pr, p0, kc, col0 + j + 2 * nr);
        ask_for_in_place_strip(pr, p0, kc, col0 + j + 3 * nr);
      }
      for (std::size_t i = r0; i < r1; i += mr) {
        const std::size_t valid_rows = std::min(mr, r1 - i);
        const float* a_strip = a_block + i * kc;
        float* c_block = c_col + static_cast<std::ptrdiff_t>(i) * pr.ldc;
        if (ahead.blocks > 0) {
          ask_for_band_lines(pr, ahead, c_block, col0 + j, valid_rows);
          ask_for_band_lines(pr, ahead, c_block + nr, col0 + j + nr, valid_rows);
        }
        if (valid_rows == mr) {
          k.pair(kc, a_strip, b0, ldb0, b1, ldb1, c_block, pr.ldc, flags);
        } else {
          run_strip_block(pr, k, kc, a_strip, b0, ldb0, c_block, valid_rows, nr, scratch, flags);
          run_strip_block(pr, k, kc, a_strip, b1, ldb1, c_block + nr, valid_rows, nr, scratch, flags);
        }
      }
      j += 2 * nr;
      continue;
    }
    const std::size_t valid_cols = std::min(nr, cols - j);
    std::ptrdiff_t ldb = 0;
    const float* b_strip = b_strip_at(pr, p0, kc, col0 + j, valid_cols, edge_strip, ldb);
    if (r0 == 0) ask_for_in_place_strip(pr, p0, kc, col0 + j + nr);
    const std::size_t tail = column_tail(pr, k, valid_cols);
    const std::size_t body = valid_cols - tail;
    if (body > 0) {
      // A packed B's next strip (kc * NR floats on, in this k-block) is asked into the second-level
      // cache a slice per A strip while this strip runs from L1 (next_strip_prefetch).
      const NextStripPrefetch next =
          j + nr >= cols ? next_block_prefetch(pr, p0, kc, col0, cols, r1 - r0, false)
          : pr.prefetch_b && r1 - r0 >= kPrefetchMinRows
              ? NextStripPrefetch{b_strip + kc * nr, kc * nr, strip_count(r1 - r0, mr)}
              : NextStripPrefetch{};
      for (std::size_t i = r0, s_i = 0; i < r1; i += mr, ++s_i) {
        next.slice(s_i);
        if (ahead.blocks > 0) {
          ask_for_band_lines(pr, ahead, c_col + static_cast<std::ptrdiff_t>(i) * pr.ldc, col0 + j, std::min(mr, r1 - i));
        }
        run_strip_block(pr, k, kc, a_block + i * kc, b_strip, ldb, c_col + static_cast<std::ptrdiff_t>(i) * pr.ldc,
                        std::min(mr, r1 - i), body, scratch, flags);
      }
    }
    // The last one to four columns once for all the rows' A strips: the column kernel then runs up
    // to eight strips' independent accumulator chains at a time instead of one (a 7 x 7 map's 49th
    // column had taken a seventh of a 512-filter 3x3 convolution's time, one chain per strip).
    if (tail > 0) {
      k.column(kc, a_block + r0 * kc, mr * kc, strip_count(r1 - r0, mr), b_strip + body, ldb,
               c_col + static_cast<std::ptrdiff_t>(r0) * pr.ldc + static_cast<std::ptrdiff_t>(body), pr.ldc, r1 - r0,
               tail, flags);
    }
    j += nr;
  }
}

// The last k-block of rows [r0, r1) of a tile in fast mode with the epilogue in the stores
// (GemmEpilogue::store, Path::store_fast): each full MR x NR block runs the store kernel, which
// leaves the block finished; a ragged last A strip (valid rows < MR) runs its usual kernels and
// then `apply` on its rows, still in L1; ragged last columns run run_rows and then `apply` on them.
// Every output gets `apply`'s arithmetic once, on the value the microkernel would have stored: the
// bits of run_rows followed by `apply` (a 16 -> 48 1x1 convolution at 112 x 112 had spent a sixth
// of its time in the separate bias pass over its finished rows). When B's strips are read packed
// or in place (`rows_first`) the blocks go A strip by A strip, so that C is written as MR rows of
// the tile's width at a time: with B strip by B strip (as a filled B must go, one fill per strip),
// a 16 -> 64 1x1 convolution at 112 x 112 wrote 64 rows 50 KB apart 128 bytes at a time and took
// 1.25x as long as with the separate pass.
void run_rows_store(const Problem& pr, const BlockKernels& k, StoreKernel store, const float* a_block, std::size_t p0,
                    std::size_t kc, std::size_t row0, std::size_t r0, std::size_t r1, std::size_t cols,
                    std::size_t col0, float* c_tile, float* scratch, float* edge_strip, std::uint32_t flags,
                    bool rows_first) {
  const std::size_t mr = pr.path->mr, nr = pr.path->nr;
  const GemmEpilogue& epilogue = *pr.epilogue;
  const std::size_t full_cols = cols / nr * nr;
  const std::size_t full_past = r0 + (r1 - r0) / mr * mr;  // rows of whole A strips
  const auto store_block = [&](std::size_t i, std::size_t j, const float* b_strip, std::ptrdiff_t ldb) {
    float* c_block = c_tile + static_cast<std::ptrdiff_t>(i) * pr.ldc + static_cast<std::ptrdiff_t>(j);
    store(kc, a_block + i * kc, b_strip, ldb, c_block, pr.ldc, flags, *epilogue.store, row0 + i, col0 + j);
  };
  if (rows_first) {
    const NextStripPrefetch next = next_block_prefetch(pr, p0, kc, col0, cols, r1 - r0, true);
    for (std::size_t i = r0, s_i = 0; i < full_past; i += mr, ++s_i) {
      next.slice(s_i);
      for (std::size_t j = 0; j < full_cols; j += nr) {
        if (i == r0) ask_for_in_place_strip(pr, p0, kc, col0 + j + nr);
        std::ptrdiff_t ldb = 0;
        const float* b_strip = b_strip_at(pr, p0, kc, col0 + j, nr, edge_strip, ldb);
        store_block(i, j, b_strip, ldb);
      }
    }
    if (full_past < r1 && full_cols > 0) {
      run_rows(pr, k, a_block, p0, kc, full_past, r1, full_cols, col0, c_tile, scratch, edge_strip, flags);
      epilogue.apply(epilogue.state, c_tile + static_cast<std::ptrdiff_t>(full_past) * pr.ldc, pr.ldc,
                     row0 + full_past, col0, r1 - full_past, full_cols);
    }
  } else {
    for (std::size_t j = 0; j < full_cols; j += nr) {
      std::ptrdiff_t ldb = 0;
      const float* b_strip = b_strip_at(pr, p0, kc, col0 + j, nr, edge_strip, ldb);
      for (std::size_t i = r0; i < full_past; i += mr) store_block(i, j, b_strip, ldb);
      if (full_past < r1) {
        float* c_block = c_tile + static_cast<std::ptrdiff_t>(full_past) * pr.ldc + static_cast<std::ptrdiff_t>(j);
        run_strip_block(pr, k, kc, a_block + full_past * kc, b_strip, ldb, c_block, r1 - full_past, nr, scratch,
                        flags);
        epilogue.apply(epilogue.state, c_block, pr.ldc, row0 + full_past, col0 + j, r1 - full_past, nr);
      }
    }
  }
  if (full_cols < cols) {
    float* c_rest = c_tile + static_cast<std::ptrdiff_t>(r0) * pr.ldc + static_cast<std::ptrdiff_t>(full_cols);
    run_rows(pr, k, a_block, p0, kc, r0, r1, cols - full_cols, col0 + full_cols, c_tile + full_cols, scratch,
             edge_strip, flags);
    epilogue.apply(epilogue.state, c_rest, pr.ldc, row0 + r0, col0 + full_cols, r1 - r0, cols - full_cols);
  }
}

// One k-block [p0, p0 + kc) of one tile (run_rows over all its rows). A tile of one row or one
// column runs the path's edge kernels when it has them (gemm_micro.hpp): the same sequence per
// output without computing the MR x NR blocks' unused rows or columns.
//
// On the last k-block of a tile whose B block fits the second-level cache (at most
// kRowsFirstFloats, 256 KB: k-blocks of up to 512 against 128 columns) and is read packed or in
// place, run_rows takes one MR-row band at a time and the epilogue runs on each finished band at
// once: the band (12 rows of a 128-column tile on AVX-512) is still in L1, where the whole tile,
// its rows a large multiple of 4 KB apart in C, had been pushed out by the time the tile-level
// epilogue read it back (a fifth of a 16 -> 48 1x1 convolution on 112 x 112; the residual Add of
// ResNet-50's 1x1 convolutions 6-10% of their time). The B block is then read from L2 once per
// band instead of from L1. The same kernel calls on the same operands and the same epilogue on
// the same finished values: the same bits. Returns true when it ran the epilogue.
constexpr std::size_t kRowsFirstFloats = 65536;
// Below gemm_micro.hpp's kOwnBlockPrefetchSteps those bands ask for the lines of the block
// prefetch_blocks_ahead(kc) on before each block (BandAhead). Session 42, Intel Xeon (model 167),
// exact mode, one thread, MobileNetV3 at batch 8 per node (minimum of three alternated profile
// medians, us): 16 -> 64 1x1 at 112 x 112 4404 -> 3722, 24 -> 72 at 56 x 56 1320 -> 1103, 16 -> 16
// with the residual 1551 -> 1452.

// Which products read their packed A ahead (run_block): at most 256 columns and at least 256
// rows of k, the weights of a layer over a 16 x 16 map or smaller (ResNet's 3x3 layers at 14 x 14
// and 7 x 7, K = 2304 and 4608; ResNet-50's 1x1 layers there, K = 256 to 2048). Each value of A
// serves n columns: over wide maps it is loaded once and reused from the first-level cache by many
// B strips, and the look-ahead instruction only costs (EfficientNet-B0, whose 1x1 layers over
// 112 x 112 to 28 x 28 maps had all taken it, ran 1.033x as long; session 30, Zen 4, fast mode).
// With at least 256 rows of k, RegNet-Y-400MF (its 1x1 layers of 440 channels at 7 x 7) ran 1.006-
// 1.026x as long over four rounds; with 1024, 0.993x, and ResNet-18 0.980-0.993x throughout.
// Session 43, Intel Xeon (model 167), one thread, fast, ab_rows.py four rounds, ms, K >= 1024 /
// 512 / 256: ResNet-50 57.1 / 55.2 / 53.2, RegNet-Y-400MF 9.15 / 9.23 / 8.69, MnasNet 6.00 / 5.89
// / 5.81, EfficientNet-B0 10.54 / 10.59 / 10.30, MobileNetV3 and DenseNet-121 within noise
// (DeepLabV3's 960 -> 256 1x1 at 14 x 14 alone 700 -> 650 us at 512): there the weights come from
// beyond L2 at every layer, so 256 is kept. Zen 4's RegNet figure above is to measure again.
constexpr std::size_t kStreamedMaxColumns = 256;
constexpr std::size_t kStreamedMinK = 256;

bool run_block(const Problem& pr, const float* a_block, std::size_t p0, std::size_t kc, std::size_t row0,
               std::size_t rows, std::size_t cols, std::size_t col0, float* c_tile, float* scratch,
               float* edge_strip) {
  const Path& path = *pr.path;
  const std::size_t mr = path.mr;
  // kernels-gemm.md step 3: the first block starts from +0, later ones from the stored C;
  // exact-mode.md rule 4: NaN is made canonical when the last block stores.
  std::uint32_t flags = p0 > 0 ? kGemmAccumulate : 0u;
  if (pr.exact && p0 + kc == pr.k) flags |= kGemmCanonicalNan;
  if (const RowKernel row = pr.exact ? path.row_exact : path.row_fast; rows == 1 && row != nullptr) {
    run_row_block(pr, row, a_block, p0, kc, cols, col0, c_tile, edge_strip, flags);
    return false;
  }
  // An A packed before the call streams from memory: where its rows are long and few columns
  // share each of its values (kStreamedMinK, kStreamedMaxColumns), the fast kernels that read it
  // ahead (Path::fast_streamed), where the path has them.
  const bool streamed = !pr.exact && pr.packed_a != nullptr && pr.n <= kStreamedMaxColumns && pr.k >= kStreamedMinK &&
                        path.fast_streamed != nullptr;
  const BlockKernels k{pr.exact ? path.exact : streamed ? path.fast_streamed : path.fast,
                       pr.exact ? path.column_exact : path.column_fast,
                       pr.exact ? path.narrow_exact : path.narrow_fast, pr.exact ? path.short_exact : path.short_fast,
                       pr.exact ? path.pair_exact : path.pair_fast,
                       pr.exact ? path.narrow_tail_exact : path.narrow_tail_fast,
                       pr.exact ? path.half_narrow_exact : path.half_narrow_fast};
  if (cols == 1 && k.column != nullptr) {
    run_column_block(pr, k.column, a_block, p0, kc, rows, col0, c_tile, edge_strip, flags);
    return false;
  }
  const bool last = p0 + kc == pr.k && pr.epilogue != nullptr && pr.epilogue->apply != nullptr;
  if (last && !pr.exact && pr.epilogue->store != nullptr && path.store_fast != nullptr) {
    const StoreKernel store =
        streamed && path.store_fast_streamed != nullptr ? path.store_fast_streamed : path.store_fast;
    run_rows_store(pr, k, store, a_block, p0, kc, row0, 0, rows, cols, col0, c_tile, scratch, edge_strip, flags,
                   pr.b_source == nullptr);
    return true;
  }
  if (last && pr.b_source == nullptr && kc * cols <= kRowsFirstFloats) {
    const std::size_t blocks_ahead = prefetch_blocks_ahead(kc);
    const NextStripPrefetch next = next_block_prefetch(pr, p0, kc, col0, cols, rows, true);
    for (std::size_t i = 0, s_i = 0; i < rows; i += mr, ++s_i) {
      next.slice(s_i);
      const std::size_t band_past = std::min(rows, i + mr);
      run_rows(pr, k, a_block, p0, kc, i, band_past, cols, col0, c_tile, scratch, edge_strip, flags,
               BandAhead{row0 + i, blocks_ahead});
      pr.epilogue->apply(pr.epilogue->state, c_tile + static_cast<std::ptrdiff_t>(i) * pr.ldc, pr.ldc, row0 + i,
                         col0, band_past - i, cols);
    }
    return true;
  }
  run_rows(pr, k, a_block, p0, kc, 0, rows, cols, col0, c_tile, scratch, edge_strip, flags);
  return false;
}

// Which band and column tile chunk `tile` is. With A packed whole (a convolution's weights) the
// bands of one column tile are consecutive chunks, so the pool's two ends (thread_pool.hpp,
// claims_) split a product by columns, the positions of a map, as they split the layer before;
// with A packed per tile the tiles of one band are consecutive instead, so a thread's cached A
// panel (APanelCache) serves the band's next tile. Only who runs a tile changes.
struct TilePlace {
  std::size_t band_index, column_index;
};

TilePlace tile_place(const Problem& pr, std::size_t tile) noexcept {
  if (pr.packed_a != nullptr) return TilePlace{tile % row_bands(pr), tile / row_bands(pr)};
  return TilePlace{tile / tile_cols(pr), tile % tile_cols(pr)};
}

void run_tile(const Problem& pr, std::size_t tile) {
  const Path& path = *pr.path;
  const TilePlace place = tile_place(pr, tile);
  // The tile's rows: one band (tile_shape), starting on a strip of MR rows.
  const std::size_t row0 = place.band_index * pr.band;
  const std::size_t col0 = place.column_index * pr.nc;
  const std::size_t rows = std::min(pr.band, pr.m - row0);
  const std::size_t cols = std::min(pr.nc, pr.n - col0);
  float* c_tile = pr.c + static_cast<std::ptrdiff_t>(row0) * pr.ldc + static_cast<std::ptrdiff_t>(col0);
  // One MR x NR tile at ragged edges (at most 12 x 32 = 384 values, the AVX-512 tile); zeroed
  // so the lanes past the edge never read uninitialised memory.
  alignas(64) float scratch[384] = {};
  // One KC x NR strip of B for a ragged edge read in place (run_block); on the stack, so a thread
  // taking such a tile for the first time allocates nothing (64 KB; wasm.sh links 8 MB stacks).
  static_assert(kMaxKc * kMaxNr * sizeof(float) <= 64 * 1024);
  alignas(64) float edge_strip[kMaxKc * kMaxNr];

  if (pr.epilogue != nullptr && pr.epilogue->prefetch != nullptr) {
    pr.epilogue->prefetch(pr.epilogue->state, row0, col0, rows, cols);
  }
  bool epilogue_done = false;  // run_block ran it band by band
  if (pr.k == 0) {
    // exact-mode.md, "Matrix product": with k = 0 the output is +0.
    for (std::size_t r = 0; r < rows; ++r) std::fill_n(c_tile + static_cast<std::ptrdiff_t>(r) * pr.ldc, cols, 0.0f);
  } else if (pr.packed_a != nullptr) {
    // A was packed once, in the same layout (pack_a_f32): the tile reads its blocks in place,
    // so the microkernel sees the same floats in the same order as when the tile packs them. A
    // band's strips are one run in each k-block (strip i at i * kc from the band's first).
    for (std::size_t p0 = 0; p0 < pr.k; p0 += path.kc) {
      const std::size_t kc = std::min(path.kc, pr.k - p0);
      const float* a_block = pr.packed_a + packed_a_offset(pr.m, path.mr, row0, p0, kc);
      epilogue_done = run_block(pr, a_block, p0, kc, row0, rows, cols, col0, c_tile, scratch, edge_strip);
    }
  } else {
    APanelCache& cache = a_panel;
    if (cache.call_id != pr.call_id || cache.row0 != row0) {
      cache.call_id = pr.call_id;
      cache.row0 = row0;
      cache.blocks_packed = 0;
    }
    // The band's rows packed alone: the strips they have in the whole tile row's panel.
    float* panel = cache.buffer.reserve(std::max(path.mc, strip_count(pr.band, path.mr) * path.mr) * pr.k);
    for (std::size_t p0 = 0, block = 0; p0 < pr.k; p0 += path.kc, ++block) {
      const std::size_t kc = std::min(path.kc, pr.k - p0);
      float* a_block = panel + p0 * pr.band;
      if (block == cache.blocks_packed) {
        if (pr.a_source != nullptr) {
          pr.a_source->pack(pr.a_source->state, row0, rows, p0, kc, path.mr, a_block);
        } else {
          path.pack_a(pr.a, row0, rows, p0, kc, a_block);
        }
        ++cache.blocks_packed;
      }
      epilogue_done = run_block(pr, a_block, p0, kc, row0, rows, cols, col0, c_tile, scratch, edge_strip);
    }
  }
  if (!epilogue_done && pr.epilogue != nullptr && pr.epilogue->apply != nullptr) {
    pr.epilogue->apply(pr.epilogue->state, c_tile, pr.ldc, row0, col0, rows, cols);
  }
}

void run_tiles(const KernelContext& context, const Problem& pr) {
  const std::size_t tiles = row_bands(pr) * tile_cols(pr);
  const double estimate = static_cast<double>(pr.m) * static_cast<double>(pr.n) * static_cast<double>(pr.k) /
                          kMultiplyAddsPerNs;
  context.parallel_for(tiles, estimate, [&pr](std::size_t tile) { run_tile(pr, tile); });
}

Problem make_problem(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, MatrixView a,
                     const float* packed_a, const float* packed_b, MatrixView b_in_place, float* c,
                     std::ptrdiff_t ldc, const GemmEpilogue* epilogue, const BStripSource* b_source,
                     const TileShape& shape) {
  const Path& path = path_for(context.isa);
  return Problem{&path, context.exact, m, n, k, a, packed_a, packed_b, b_in_place, b_source, nullptr, c, ldc, epilogue,
                 next_call_id.fetch_add(1, std::memory_order_relaxed), shape.nc, shape.band};
}

// B for one call: packed (pack_b_for_call) or, when reads_b_in_place, left where it is.
struct CallB {
  const float* packed = nullptr;
  MatrixView in_place;
};

// The packing chunk (pack_b_chunk's numbering: k-block after k-block, groups of strips inside)
// that the pool's c-th chunk packs: all k-blocks of one group of strips, then the next group, so
// the pool's two ends (thread_pool.hpp, claims_) split the packing by columns as they split the
// tiles that read it (tile_place). Only who packs a chunk changes, not what it writes.
std::size_t column_major_chunk(std::size_t k, std::size_t n, std::size_t nr, std::size_t block,
                               std::size_t c) noexcept {
  const std::size_t blocks = strip_count(k, block);
  const std::size_t chunks_per_block = strip_count(strip_count(n, nr), kPackStripsPerChunk);
  return (c % blocks) * chunks_per_block + c / blocks;
}

// kernels-gemm.md step 1: B is packed once per call, for all of k and n, into the calling
// thread's buffer; the chunks may run on other threads. nullptr when k = 0.
const float* pack_b_for_call(const KernelContext& context, std::size_t n, std::size_t k, MatrixView b) {
  if (k == 0) return nullptr;
  const Path& path = path_for(context.isa);
  float* packed = b_packing.reserve(packed_b_size(k, n, path.nr));
  const std::size_t chunks = pack_b_chunk_count(k, n, path.nr, path.kc);
  const double estimate = kNsPerPackedElement * static_cast<double>(packed_b_size(k, n, path.nr));
  context.parallel_for(chunks, estimate, [&](std::size_t c) {
    pack_b_chunk(k, n, path.nr, path.kc, b, packed, column_major_chunk(k, n, path.nr, path.kc, c));
  });
  return packed;
}

// pack_b_for_call with B from a strip source: each strip filled straight into its packed place.
const float* fill_b_for_call(const KernelContext& context, std::size_t n, std::size_t k, const BStripSource& b) {
  if (k == 0) return nullptr;
  const Path& path = path_for(context.isa);
  const std::size_t nr = path.nr, block = path.kc;
  float* packed = b_packing.reserve(packed_b_size(k, n, nr));
  const std::size_t strips = strip_count(n, nr);
  const std::size_t chunks_per_block = strip_count(strips, kPackStripsPerChunk);
  const std::size_t chunks = pack_b_chunk_count(k, n, nr, block);
  const double estimate = kNsPerPackedElement * static_cast<double>(packed_b_size(k, n, nr));
  context.parallel_for(chunks, estimate, [&](std::size_t c) {
    const std::size_t chunk = column_major_chunk(k, n, nr, block, c);
    const std::size_t p0 = (chunk / chunks_per_block) * block;
    const std::size_t kc = std::min(block, k - p0);
    const std::size_t first = (chunk % chunks_per_block) * kPackStripsPerChunk;
    for (std::size_t s = first; s < std::min(strips, first + kPackStripsPerChunk); ++s) {
      b.fill(b.state, p0, kc, s * nr, std::min(nr, n - s * nr), nr, packed + packed_b_offset(k, n, nr, block, p0, s));
    }
  });
  return packed;
}

CallB prepare_b(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, MatrixView b) {
  if (reads_b_in_place(path_for(context.isa), m, k, b)) return CallB{nullptr, b};
  return CallB{pack_b_for_call(context, n, k, b), MatrixView{}};
}

// A B of at most kPerTileBFloats (a quarter of L2) that is not read in place is packed by each
// tile, strip by strip, into the tile's own strip buffer, instead of whole by the calling thread
// before the tiles: B is then packed once per band (about one float copied per MR * NR
// multiply-adds) rather than once, but the tiles no longer wait on a serial packing step, nor read
// B from the cache of the core that packed it while that core takes the lines back for the next
// call. A 128 x 128 x 64 product took 26.5 us at two threads against 16.3 at one (the attention
// heads of BERT), 197 x 197 x 64 46 against 39 (ViT's); now 14.6 and 24. On one thread the extra
// packing costs 5-8% and there is nothing to wait on, so a pool of one thread keeps the whole-B
// packing (there, bands of 24 rows copying B once each took 1.4x the time on 197 x 64 x 197; at
// two threads they still gain: 41 -> 31 us). Only for B with contiguous rows: a transposed B (the
// keys of an attention's scores) is gathered, which costs too much to repeat per band (DeiT's
// scores 1.12x the time). And only with A not packed beforehand: a convolution's packed filters
// against a 1x1 layer's input are banded finely for the threads (rows first, m > n), and B copied
// once per band cost MnasNet and RegNet-Y 3-4% at two threads. The strips hold the
// same floats either way, so the choice cannot change a result.
constexpr std::size_t kPerTileBFloats = std::size_t{1} << 16;

struct ViewStrips {
  MatrixView b;
  std::size_t n;
};

void fill_view_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t, std::size_t nr,
                     float* out) {
  const ViewStrips& strips = *static_cast<const ViewStrips*>(state);
  pack_b_strip(strips.b, strips.n, p0, kc, col, nr, out);
}

bool packs_b_per_tile(const KernelContext& context, const Path& path, std::size_t m, std::size_t n, std::size_t k,
                      MatrixView b, bool a_packed) noexcept {
  return !a_packed && context.pool != nullptr && context.pool->threads() > 1 && !reads_b_in_place(path, m, k, b) &&
         k > 0 && k * n <= kPerTileBFloats && b.col_stride == 1;
}

// With A packed once (a convolution's weights) and B a view with contiguous rows (a 1x1
// convolution's input), B was packed whole per call once m passed MC (96 rows): a copy of the
// whole input for two or three bands to read (7% of a 64 -> 256 1x1 convolution at 56 x 56). Up
// to kWideBandRows rows, one band of all of them (sourced_band_shape's, when it still gives the
// threads kMinTiles tiles) reads every B value once, in place: that shape, or nothing where the
// product is not such a one or the band would leave fewer tiles.
//
// Its tiles then widen (doubling, up to kMaxWidening times NC) while the call keeps kMinTiles of
// them. Such a layer writes up to 264 output planes (and reads as many residual planes), and a
// tile writes MR rows of its width at a time (run_rows_store): with 128 columns each plane got 512
// bytes per visit, streams too short and too many for the hardware prefetchers, so from beyond L2
// (ResNet-50's 3.2 MB outputs at 56 x 56) the stores waited on their lines; 256 columns give 1 KB.
// The B block (64 rows of k by 256 columns) is then read from L2 by each A strip instead of L1.
// Session 42, Intel Xeon (model 167), one thread, per node (onemodel profile, minimum of four
// alternated medians, us): ResNet-50 at batch 1, 64 -> 256 at 56 x 56 with the residual 1264 ->
// 1019, its downsample 1002 -> 771, 256 -> 64 823 -> 799; at batch 8 10776 -> 8960 and 8491 ->
// 7264; the row 62.1 -> 59.8 ms (median of the four). Maps of 28 x 28 and less keep 128 (fewer
// than kMinTiles tiles otherwise). Rows elsewhere (DenseNet-121, ResNeXt-50, RegNet-Y,
// MobileNetV3, EfficientNet-B0, ResNet-18; ab_rows.py) within noise. Tiles never change a result.
std::optional<TileShape> in_place_band_shape(const Path& path, std::size_t m, std::size_t n, std::size_t k,
                                             bool a_packed, MatrixView b, TileShape shape) noexcept {
  if (!a_packed || k == 0 || b.col_stride != 1 || m <= path.mc || m > kWideBandRows) return std::nullopt;
  TileShape wide = sourced_band_shape(path, m, n, shape);
  if (wide.band < m) return std::nullopt;
  while (2 * wide.nc <= kMaxWidening * path.nc && strip_count(n, 2 * wide.nc) >= kMinTiles) wide.nc *= 2;
  return wide;
}

// The product's operands behind one interface: where the tiles take A's packed blocks and B's
// strips from. A is a view the tiles pack (the thread's panel cache), blocks packed whole
// beforehand (PackedA) or a source packing blocks on request (AStripSource); B is a view read in
// place or packed once per call, strips packed whole beforehand (PackedB) or a source filling
// strips per tile or once per call (BStripSource). Every public entry point below is one pair of
// these and one call of run_product; the tile code (run_tile, b_strip_at) serves every pair, so
// the microkernels see the same floats in the same order whichever provider holds them.
struct AOperand {
  MatrixView view;
  const PackedA* packed = nullptr;
  const AStripSource* source = nullptr;
};
struct BOperand {
  MatrixView view;
  const PackedB* packed = nullptr;
  const BStripSource* source = nullptr;
  bool from_memory = false;  // gemm_f32_packed_a's b_from_memory
};

// Packed operands must be in this path's layout and of this product's shape.
void check_packed(const Path& path, std::size_t m, std::size_t k, const AOperand& a, const BOperand& b,
                  const char* who) {
  if (b.packed != nullptr && b.packed->isa() != path.isa) {
    throw std::invalid_argument(std::string(who) + ": B was packed for another instruction-set path");
  }
  if (a.packed != nullptr) {
    if (a.packed->isa() != path.isa) {
      throw std::invalid_argument(std::string(who) + ": A was packed for another instruction-set path");
    }
    if (a.packed->m() != m || a.packed->k() != k) {
      throw std::invalid_argument(std::string(who) + ": A was packed for another m or k");
    }
  }
}

void run_product(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, const AOperand& a,
                 const BOperand& b, float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue, const char* who) {
  const Path& path = path_for(context.isa);
  check_packed(path, m, k, a, b, who);
  if (m == 0 || n == 0) return;
  TileShape shape = tile_shape(path, m, n, k);
  if (a.packed == nullptr && a.source == nullptr && b.packed != nullptr) shape = wide_band_shape(path, m, n, shape);
  if (a.packed != nullptr && b.source != nullptr) shape = sourced_band_shape(path, m, n, shape);
  CallB call_b;
  const BStripSource* per_tile = nullptr;
  const ViewStrips view{b.view, n};
  const BStripSource view_strips{fill_view_strip, &view, true};
  if (b.packed != nullptr) {
    call_b.packed = b.packed->data();
  } else if (b.source != nullptr) {
    // One row band (tile_shape): every strip is used by one tile, which fills it when it needs it;
    // so too when a strip is as cheap to fill as to read (BStripSource::per_tile). Otherwise B is
    // filled whole, once, rather than once per band.
    if (k > 0 && (m <= shape.band || b.source->per_tile)) {
      per_tile = b.source;
    } else {
      call_b.packed = fill_b_for_call(context, n, k, *b.source);
    }
  } else if (packs_b_per_tile(context, path, m, n, k, b.view, a.packed != nullptr)) {
    per_tile = &view_strips;
  } else if (const std::optional<TileShape> wide =
                 in_place_band_shape(path, m, n, k, a.packed != nullptr, b.view, shape)) {
    shape = *wide;
    call_b.in_place = b.view;
  } else {
    call_b = prepare_b(context, m, n, k, b.view);
  }
  Problem problem = make_problem(context, m, n, k, a.view, a.packed != nullptr ? a.packed->data() : nullptr,
                                 call_b.packed, call_b.in_place, c, ldc, epilogue, per_tile, shape);
  problem.a_source = a.source;
  problem.prefetch_b = b.packed != nullptr && k * n >= kPrefetchMinFloats;
  problem.ask_b_ahead = b.from_memory;
  run_tiles(context, problem);
}

}  // namespace
}  // namespace gemm

void gemm_f32(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue) {
  gemm::run_product(context, m, n, k, gemm::AOperand{a}, gemm::BOperand{b}, c, ldc, epilogue, "gemm_f32");
}

PackedB pack_b_f32(Isa isa, std::size_t k, std::size_t n, MatrixView b) {
  const gemm::Path& path = gemm::path_for(isa);
  PackedB packed;
  packed.isa_ = path.isa;
  packed.k_ = k;
  packed.n_ = n;
  packed.size_ = gemm::packed_b_size(k, n, path.nr);
  packed.data_.reset(gemm::allocate_aligned_floats(packed.size_));
  if (n > 0) {
    const std::size_t chunks = gemm::pack_b_chunk_count(k, n, path.nr, path.kc);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
      gemm::pack_b_chunk(k, n, path.nr, path.kc, b, packed.data_.get(), chunk);
    }
  }
  return packed;
}

void gemm_f32_packed(const KernelContext& context, std::size_t m, MatrixView a, const PackedB& b, float* c,
                     std::ptrdiff_t ldc, const GemmEpilogue* epilogue) {
  gemm::run_product(context, m, b.n(), b.k(), gemm::AOperand{a}, gemm::BOperand{MatrixView{}, &b}, c, ldc, epilogue,
                    "gemm_f32_packed");
}

void gemm_f32_packed_b_sourced_a(const KernelContext& context, std::size_t m, const AStripSource& a, const PackedB& b,
                                 float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue) {
  gemm::run_product(context, m, b.n(), b.k(), gemm::AOperand{MatrixView{}, nullptr, &a},
                    gemm::BOperand{MatrixView{}, &b}, c, ldc, epilogue, "gemm_f32_packed_b_sourced_a");
}

PackedA pack_a_f32(Isa isa, std::size_t m, std::size_t k, MatrixView a) {
  const gemm::Path& path = gemm::path_for(isa);
  PackedA packed;
  packed.isa_ = path.isa;
  packed.m_ = m;
  packed.k_ = k;
  packed.size_ = gemm::packed_a_size(m, k, path.mr);
  packed.data_.reset(gemm::allocate_aligned_floats(packed.size_));
  // The strips the tiles would pack (run_tile), all rows of one k-block after the other.
  for (std::size_t p0 = 0; p0 < k; p0 += path.kc) {
    const std::size_t kc = std::min(path.kc, k - p0);
    path.pack_a(a, 0, m, p0, kc, packed.data_.get() + gemm::packed_a_offset(m, path.mr, 0, p0, kc));
  }
  return packed;
}

void gemm_f32_packed_a(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k, const PackedA& a,
                       MatrixView b, float* c, std::ptrdiff_t ldc, const GemmEpilogue* epilogue, bool b_from_memory) {
  gemm::run_product(context, m, n, k, gemm::AOperand{MatrixView{}, &a}, gemm::BOperand{b, nullptr, nullptr, b_from_memory},
                    c, ldc, epilogue, "gemm_f32_packed_a");
}

void gemm_f32_sourced(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k,
                      const AStripSource* a_source, MatrixView a, const BStripSource* b_source, MatrixView b, float* c,
                      std::ptrdiff_t ldc, const GemmEpilogue* epilogue) {
  gemm::run_product(context, m, n, k, gemm::AOperand{a, nullptr, a_source}, gemm::BOperand{b, nullptr, b_source}, c,
                    ldc, epilogue, "gemm_f32_sourced");
}

void gemm_f32_packed_a_sourced(const KernelContext& context, std::size_t m, std::size_t n, std::size_t k,
                               const PackedA& a, const BStripSource& b, float* c, std::ptrdiff_t ldc,
                               const GemmEpilogue* epilogue) {
  gemm::run_product(context, m, n, k, gemm::AOperand{MatrixView{}, &a}, gemm::BOperand{MatrixView{}, nullptr, &b}, c,
                    ldc, epilogue, "gemm_f32_packed_a_sourced");
}

}  // namespace onemodel::opt
