// The frame of the element-wise kernels (DESIGN.md rule 4: loops apart from ISA code): choice of
// the instruction-set variant from the family's registry list (elementwise_list.inc), fixed
// chunks for the thread pool, and the NumPy broadcast walk that turns a binary operation into runs
// whose operands are contiguous or one broadcast value.
#include "optimized/kernels/elementwise/elementwise.hpp"

#include "optimized/kernels/elementwise/elementwise_paths.hpp"

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt::ew {

double unary_ns_per_element(UnaryOp op) noexcept {
  switch (op) {
    case UnaryOp::Sqrt: return 1.0;
    case UnaryOp::Exp: return 1.5;
    case UnaryOp::Log:
    case UnaryOp::Sigmoid:
    case UnaryOp::Silu: return 2.0;
    case UnaryOp::Tanh:
    case UnaryOp::GeluTanh: return 3.0;
    case UnaryOp::Erf:
    case UnaryOp::GeluErf:
    case UnaryOp::ErfGateChain: return 4.0;
    default: return 0.5;
  }
}

namespace {

// The registry table, from the list (elementwise_list.inc).
constexpr Variant kVariants[] = {
#define ONEMODEL_EW_VARIANT(suffix, isa, name) \
  Variant{name, Isa::isa, unary_f32__##suffix, binary_f32__##suffix, scale_shift_activation_f32__##suffix},
#include "optimized/kernels/elementwise/elementwise_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const Variant& variant_for(Isa isa) noexcept {
  static const VariantChoice<Variant> choice{std::span<const Variant>(kVariants)};
  return choice[isa];
}

}  // namespace

std::span<const Variant> variants() noexcept { return kVariants; }

void unary_f32_run(Isa isa, const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  variant_for(isa).unary(args, x, y, n);
}

void binary_f32_run(Isa isa, BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b,
                    std::ptrdiff_t b_step, float* y, std::size_t n) {
  variant_for(isa).binary(op, a, a_step, b, b_step, y, n);
}

void scale_shift_activation_f32_run(Isa isa, float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                    std::size_t n) {
  variant_for(isa).scale_shift_activation(a, shift, act, x, y, n);
}

void unary_f32(const KernelContext& context, const UnaryArgs& args, const float* x, float* y, std::size_t n) {
  if (n == 0) return;
  const std::size_t chunks = (n + kChunkElements - 1) / kChunkElements;
  const double estimate = static_cast<double>(n) * unary_ns_per_element(args.op);
  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    const std::size_t begin = chunk * kChunkElements;
    const std::size_t count = n - begin < kChunkElements ? n - begin : kChunkElements;
    unary_f32_run(context.isa, args, x + begin, y + begin, count);
  });
}

namespace {

// The output index space after broadcasting, with axes of extent 1 dropped and neighbouring axes
// merged where both operands walk them as one (so a contiguous operand becomes one long run).
struct BroadcastWalk {
  int rank = 0;  // axes kept; the last is the run axis
  std::int64_t extent[kMaxRank] = {};
  std::int64_t a_stride[kMaxRank] = {};
  std::int64_t b_stride[kMaxRank] = {};
};

// Strides (in elements) of a contiguous operand of shape `shape`, right-aligned to `rank` output
// axes; 0 on axes the operand lacks or has extent 1 (spec/ops/elementwise.md section 2).
void operand_strides(std::span<const std::int32_t> shape, int rank, std::int64_t* strides) {
  const int offset = rank - static_cast<int>(shape.size());
  std::int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int own = d - offset;
    if (own < 0 || shape[static_cast<std::size_t>(own)] == 1) {
      strides[d] = 0;
    } else {
      strides[d] = stride;
      stride *= shape[static_cast<std::size_t>(own)];
    }
  }
}

BroadcastWalk make_walk(std::span<const std::int32_t> a_shape, std::span<const std::int32_t> b_shape,
                        std::span<const std::int32_t> y_shape) {
  const int rank = static_cast<int>(y_shape.size());
  std::int64_t sa[kMaxRank] = {};
  std::int64_t sb[kMaxRank] = {};
  operand_strides(a_shape, rank, sa);
  operand_strides(b_shape, rank, sb);
  BroadcastWalk walk;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t e = y_shape[static_cast<std::size_t>(d)];
    if (e == 1) continue;
    if (walk.rank > 0) {
      const int last = walk.rank - 1;
      // The kept axis `last` followed by axis d is one axis when, for both operands, stepping
      // `last` once equals stepping d e times.
      if (walk.a_stride[last] == sa[d] * e && walk.b_stride[last] == sb[d] * e) {
        walk.extent[last] *= e;
        walk.a_stride[last] = sa[d];
        walk.b_stride[last] = sb[d];
        continue;
      }
    }
    walk.extent[walk.rank] = e;
    walk.a_stride[walk.rank] = sa[d];
    walk.b_stride[walk.rank] = sb[d];
    ++walk.rank;
  }
  if (walk.rank == 0) {  // one element
    walk.rank = 1;
    walk.extent[0] = 1;
  }
  return walk;
}

}  // namespace

void binary_f32(const KernelContext& context, BinaryOp op, const float* a, std::span<const std::int32_t> a_shape,
                const float* b, std::span<const std::int32_t> b_shape, float* y,
                std::span<const std::int32_t> y_shape) {
  std::size_t n = 1;
  for (std::int32_t e : y_shape) n *= static_cast<std::size_t>(e);
  if (n == 0) return;
  const BroadcastWalk walk = make_walk(a_shape, b_shape, y_shape);
  const int run_axis = walk.rank - 1;
  const std::size_t run = static_cast<std::size_t>(walk.extent[run_axis]);
  const std::ptrdiff_t a_step = static_cast<std::ptrdiff_t>(walk.a_stride[run_axis]);
  const std::ptrdiff_t b_step = static_cast<std::ptrdiff_t>(walk.b_stride[run_axis]);
  const std::size_t rows = n / run;
  // Fixed chunks: pieces of one row when rows are long, else groups of whole rows.
  const std::size_t pieces = (run + kChunkElements - 1) / kChunkElements;
  const std::size_t rows_per_chunk = run >= kChunkElements ? 1 : kChunkElements / run;
  const std::size_t chunks = pieces > 1 ? rows * pieces : (rows + rows_per_chunk - 1) / rows_per_chunk;
  const double estimate = static_cast<double>(n) * (op == BinaryOp::Div ? 1.0 : 0.5);
  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    std::size_t first_row, row_count, col = 0, cols = run;
    if (pieces > 1) {
      first_row = chunk / pieces;
      row_count = 1;
      col = (chunk % pieces) * kChunkElements;
      cols = run - col < kChunkElements ? run - col : kChunkElements;
    } else {
      first_row = chunk * rows_per_chunk;
      row_count = rows - first_row < rows_per_chunk ? rows - first_row : rows_per_chunk;
    }
    // The outer index of first_row (odometer over the axes before the run axis).
    std::int64_t index[kMaxRank] = {};
    std::int64_t a_offset = 0, b_offset = 0;
    std::size_t rest = first_row;
    for (int d = run_axis - 1; d >= 0; --d) {
      index[d] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(walk.extent[d]));
      rest /= static_cast<std::size_t>(walk.extent[d]);
      a_offset += index[d] * walk.a_stride[d];
      b_offset += index[d] * walk.b_stride[d];
    }
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::size_t row = first_row + r;
      binary_f32_run(context.isa, op, a + a_offset + a_step * static_cast<std::ptrdiff_t>(col), a_step,
                     b + b_offset + b_step * static_cast<std::ptrdiff_t>(col), b_step, y + row * run + col, cols);
      for (int d = run_axis - 1; d >= 0; --d) {
        a_offset += walk.a_stride[d];
        b_offset += walk.b_stride[d];
        if (++index[d] < walk.extent[d]) break;
        a_offset -= walk.a_stride[d] * walk.extent[d];
        b_offset -= walk.b_stride[d] * walk.extent[d];
        index[d] = 0;
      }
    }
  });
}

}  // namespace onemodel::opt::ew
