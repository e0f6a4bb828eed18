// im2col + matrix product, matrix product + col2im (see conv2d.hpp).
#include "optimized/kernels/conv/conv2d.hpp"

#include <algorithm>
#include <cstdint>

#include "optimized/kernels/conv/conv_bias_epilogue.hpp"
#include "optimized/kernels/conv/conv_phase_split.hpp"
#include "optimized/kernels/conv/im2col.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/frame/canonical_nan.hpp"

namespace onemodel::opt {
namespace {

// kernels-gemm.md "Fixed chunks": im2col rows are built in chunks of 16.
constexpr std::size_t kIm2colRowsPerChunk = 16;
// kernels-gemm.md "Fixed chunks": half a nanosecond per element packed or copied.
constexpr double kCopyNanoseconds = 0.5;

bool input_is_matrix(const Conv2dShape& s) noexcept {
  return s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
         s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
}

// The im2col matrix of one image and group as the product's strip source (BStripSource).
struct Im2colSource {
  const Conv2dShape* shape;
  const float* x_group;
  Im2colStripFn fill;  // the path's filler (im2col_strip_for): the same floats on every path
};

void fill_im2col_strip(const void* state, std::size_t p0, std::size_t kc, std::size_t col, std::size_t valid,
                       std::size_t nr, float* out) {
  const Im2colSource& source = *static_cast<const Im2colSource*>(state);
  source.fill(*source.shape, source.x_group, p0, kc, col, valid, nr, out);
}

// Where one image and group of a convolution reads and writes, and the bias and activation
// epilogue of its product (shared by the float32 and the 16-bit-weight paths). Not copyable: the
// epilogue points at the state beside it.
struct GroupOperands {
  GroupOperands(const KernelContext& context, const Conv2dShape& s, const float* x, const float* bias, float* y,
                const ConvActivation* activation, std::size_t image, std::size_t g)
      : x_group(x + (image * s.in_channels + g * s.in_per_group()) * s.in_plane()),
        c(y + (image * s.out_channels + g * s.out_per_group()) * s.out_plane()),
        state{bias != nullptr ? bias + g * s.out_per_group() : nullptr, context.exact, activation, context.isa,
              g * s.out_per_group(), (image * s.out_channels + g * s.out_per_group()) * s.out_plane(), s.out_plane()},
        store_ops(store_ops_for(context, state)),
        epilogue{conv_bias_epilogue, &state, conv_epilogue_prefetch, store_ops.bias != nullptr ? &store_ops : nullptr},
        apply(bias != nullptr || activation != nullptr ? &epilogue : nullptr) {}
  GroupOperands(const GroupOperands&) = delete;
  GroupOperands& operator=(const GroupOperands&) = delete;

  // conv_bias_epilogue's work as the AVX-512 and AVX2 products' stores can do it (GemmStoreOps): the bias,
  // then a residual Add (C is laid out like y here: element (r, j) is y[first + r * plane + j]),
  // then a Relu, Clip, LeakyRelu, HardSwish or SiLU, with no normalization and no narrowing (the one-pass
  // epilogue's case, conv_bias_rows.hpp, or the bias pass and the Add's pass); bias null where the
  // epilogue does other work.
  static GemmStoreOps store_ops_for(const KernelContext& context, const ConvBiasState& b) {
    GemmStoreOps ops;
    if ((context.isa != Isa::Avx512 && context.isa != Isa::Avx2) || b.bias == nullptr) return ops;
    if (b.activation != nullptr) {
      const ConvActivation& a = *b.activation;
      if (a.norm_scale != nullptr || a.round_first != nullptr) return ops;
      if (a.residual != nullptr) {
        ops.residual = a.residual + b.first;
        ops.residual_ld = b.plane;
      }
      if (!a.activate) {
        if (ops.residual == nullptr) return GemmStoreOps{};
        ops.bias = b.bias;
        return ops;
      }
      if (!activation_fuses_in_store(b.activation)) return GemmStoreOps{};
      ops.activate = true;
      ops.activation = b.activation->args.op;
      ops.alpha = b.activation->args.alpha;
      ops.beta = b.activation->args.beta;
      ops.fast = b.activation->args.fast;
    }
    ops.bias = b.bias;
    return ops;
  }

  const float* x_group;
  float* c;
  const ConvBiasState state;
  const GemmStoreOps store_ops;
  const GemmEpilogue epilogue;
  const GemmEpilogue* apply;  // the epilogue, or nullptr without bias and activation
};

}  // namespace

std::size_t conv2d_workspace_floats(const Conv2dShape& s, bool packed_weights, Isa isa) noexcept {
  if (input_is_matrix(s)) return 0;
  if (packed_weights) return conv_reads_phase_planes(isa, s) ? conv_phase_split_floats(s) : 0;
  return s.in_per_group() * s.taps() * s.out_plane();
}

std::vector<PackedA> conv2d_pack_weights(Isa isa, const Conv2dShape& s, const float* w) {
  const std::size_t m = s.out_per_group(), k = s.in_per_group() * s.taps();
  std::vector<PackedA> packed;
  packed.reserve(s.groups);
  for (std::size_t g = 0; g < s.groups; ++g) {
    packed.push_back(pack_a_f32(isa, m, k, MatrixView{w + g * m * k, static_cast<std::ptrdiff_t>(k), 1}));
  }
  return packed;
}

namespace {

// One image and group of conv2d_f32: the group's product (weights as A, the image's channels of
// the group as B, in place for a 1x1 stride-1 convolution, else im2col) with the bias and
// activation epilogue. `workspace` is needed only without packed weights and without a direct B.
void conv2d_group(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w,
                  const float* bias, float* y, float* workspace, const ConvActivation* activation,
                  const PackedA* packed_weights, std::size_t image, std::size_t g) {
  const std::size_t m = s.out_per_group(), n = s.out_plane(), k = s.in_per_group() * s.taps();
  const bool direct = input_is_matrix(s);
  const GroupOperands group(context, s, x, bias, y, activation, image, g);
  const float* x_group = group.x_group;
  float* c = group.c;
  const GemmEpilogue* apply = group.apply;
  if (!direct && packed_weights != nullptr && workspace != nullptr && conv_reads_phase_planes(context.isa, s)) {
    // Strided: the image split into its phase planes once (conv_phase_split.hpp), then the matrix
    // of a 1x1 kernel or a patch embedding read in place, or the strips filled from the planes:
    // the same floats.
    conv_phase_split_group(context, s, x_group, workspace);
    if (conv_phase_matrix_in_place(s)) {
      const MatrixView b{workspace, static_cast<std::ptrdiff_t>(conv_phase_matrix_row_stride(s)), 1};
      gemm_f32_packed_a(context, m, n, k, packed_weights[g], b, c, static_cast<std::ptrdiff_t>(n), apply);
      return;
    }
    const ConvPhaseSource source{&s, x_group, workspace, context.isa};
    gemm_f32_packed_a_sourced(context, m, n, k, packed_weights[g], BStripSource{fill_conv_phase_strip, &source}, c,
                              static_cast<std::ptrdiff_t>(n), apply);
    return;
  }
  if (!direct && packed_weights != nullptr) {
    // The im2col matrix is never stored: the product fills each strip of it from the image
    // when it needs it (kernels-gemm.md "Convolution": the same rows in the same order).
    const Im2colSource source{&s, x_group, im2col_strip_for(context.isa)};
    gemm_f32_packed_a_sourced(context, m, n, k, packed_weights[g], BStripSource{fill_im2col_strip, &source}, c,
                              static_cast<std::ptrdiff_t>(n), apply);
    return;
  }
  MatrixView b{x_group, static_cast<std::ptrdiff_t>(n), 1};
  if (!direct) {
    const std::size_t chunks = (k + kIm2colRowsPerChunk - 1) / kIm2colRowsPerChunk;
    context.parallel_for(chunks, static_cast<double>(k * n) * kCopyNanoseconds, [&](std::size_t chunk) {
      const std::size_t begin = chunk * kIm2colRowsPerChunk;
      im2col_rows_f32(s, x_group, begin, std::min(k, begin + kIm2colRowsPerChunk), workspace);
    });
    b.data = workspace;
  }
  if (packed_weights != nullptr) {
    // The group's weights packed once (conv2d_pack_weights): same floats, same order.
    // A 1x1 layer reads its input in place, written a layer or more before (gemm.hpp,
    // b_from_memory; asking for every such input's strips ahead measured no loss on inputs still
    // in L2: SqueezeNet's and MnasNet's layers at batch 1, session 42); the im2col workspace was
    // just written.
    gemm_f32_packed_a(context, m, n, k, packed_weights[g], b, c, static_cast<std::ptrdiff_t>(n), apply, direct);
    return;
  }
  // The group's weights are A (m x k, rows ordered like the im2col rows).
  const MatrixView a{w + g * m * k, static_cast<std::ptrdiff_t>(k), 1};
  gemm_f32(context, m, n, k, a, b, c, static_cast<std::ptrdiff_t>(n), apply);
}

// A grouped convolution whose groups are small products runs one chunk per image and group,
// each group's product on that chunk's thread alone, instead of one group after the other with
// the threads sharing each small product: RegNet-Y-400MF's 3x3 convolutions in groups of 8
// channels (8 x 196 x 72 per group, about 3 us) stayed on one thread and took longer with a second
// one spinning beside it (0.61-0.9x), and ResNeXt-50's 32 groups fared little better. A group's
// product is the same call either way (same tiles, same order per output: kernels-gemm.md "Fixed
// chunks"), so the bits do not change. Needs a group's B not to share the im2col workspace:
// packed weights (strips filled per tile) or a 1x1 convolution read in place.
constexpr double kMaxGroupChunkMultiplyAdds = 2097152.0;  // 2^21, about 50 us on one core

bool runs_group_chunks(const Conv2dShape& s, bool has_packed_weights) noexcept {
  const double group_work = static_cast<double>(s.out_per_group()) * static_cast<double>(s.out_plane()) *
                            static_cast<double>(s.in_per_group() * s.taps());
  return s.groups > 1 && (has_packed_weights || input_is_matrix(s)) && group_work <= kMaxGroupChunkMultiplyAdds;
}

using gemm::kMultiplyAddsPerNs;  // the product's work estimate (gemm.hpp)

// A batch of images runs one chunk per image, each image's product on its chunk's thread alone,
// where the pool's threads divide the batch evenly (or the batch is four times the threads, so
// the last round of images is a small part): the threads then split the batch as every such layer
// does, and each reads the images it wrote in the layer before from its own cache, where splitting
// each image's product by columns (tiles) had left every layer reading half its input from the
// other core and cost a fork and join per image. Session 42, Intel Xeon (model 167), two threads,
// alternated rows (ab_rows.py, ms): MobileNetV3 at batch 8 fast 27.7 -> 23.1, exact 36.6 -> 31.7;
// MnasNet at batch 8 33.3 -> 27.5, exact 45.5 -> 40.0; EfficientNet-B0 at batch 8 50.6 -> 45.7;
// ResNet-50 at batch 8 247 -> 231; DenseNet-121 at batch 4 103.8 -> 95.2 (first tried for
// products of at most 2^24 multiply-adds per image; without that bound ResNet-50 and DenseNet
// gained more). Only where no call-wide workspace is needed: packed weights (the im2col strips
// filled per tile) and not the phase planes of a strided layer. An image's product is the same
// call on one thread as on several (kernels-gemm.md "Fixed chunks"): the same bits.
bool runs_image_chunks(const KernelContext& context, const Conv2dShape& s, bool has_packed_weights) noexcept {
  if (context.pool == nullptr || s.batch < 2 || !has_packed_weights) return false;
  const auto threads = static_cast<std::size_t>(context.pool->threads());
  if (threads < 2 || (s.batch % threads != 0 && s.batch < 4 * threads)) return false;
  return input_is_matrix(s) || !conv_reads_phase_planes(context.isa, s);
}

}  // namespace

void conv2d_f32(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w, const float* bias,
                float* y, float* workspace, const ConvActivation* activation, const PackedA* packed_weights) {
  const std::size_t m = s.out_per_group(), n = s.out_plane(), k = s.in_per_group() * s.taps();
  if (s.batch == 0 || m == 0 || n == 0) return;
  if (runs_group_chunks(s, packed_weights != nullptr)) {
    const KernelContext alone{context.isa, context.exact, nullptr};
    const double estimate = static_cast<double>(s.batch * s.groups) * static_cast<double>(m) *
                            static_cast<double>(n) * static_cast<double>(k) / kMultiplyAddsPerNs;
    context.parallel_for(s.batch * s.groups, estimate, [&](std::size_t chunk) {
      conv2d_group(alone, s, x, w, bias, y, nullptr, activation, packed_weights, chunk / s.groups, chunk % s.groups);
    });
    return;
  }
  if (runs_image_chunks(context, s, packed_weights != nullptr)) {
    const KernelContext alone{context.isa, context.exact, nullptr};
    const double estimate = static_cast<double>(s.batch) * static_cast<double>(s.out_channels) *
                            static_cast<double>(n) * static_cast<double>(k) / kMultiplyAddsPerNs;
    context.parallel_for(s.batch, estimate, [&](std::size_t image) {
      for (std::size_t g = 0; g < s.groups; ++g) {
        conv2d_group(alone, s, x, w, bias, y, nullptr, activation, packed_weights, image, g);
      }
    });
    return;
  }
  for (std::size_t image = 0; image < s.batch; ++image) {
    for (std::size_t g = 0; g < s.groups; ++g) {
      conv2d_group(context, s, x, w, bias, y, workspace, activation, packed_weights, image, g);
    }
  }
}

void conv2d_f32_half_weights(const KernelContext& context, const Conv2dShape& s, const float* x, const HalfMatrixView& w,
                             const float* bias, float* y, const ConvActivation* activation) {
  const std::size_t m = s.out_per_group(), n = s.out_plane(), k = s.in_per_group() * s.taps();
  if (s.batch == 0 || m == 0 || n == 0) return;
  const bool direct = input_is_matrix(s);
  for (std::size_t image = 0; image < s.batch; ++image) {
    for (std::size_t g = 0; g < s.groups; ++g) {
      const GroupOperands group(context, s, x, bias, y, activation, image, g);
      const float* x_group = group.x_group;
      float* c = group.c;
      const GemmEpilogue* apply = group.apply;
      // The group's weights are A (m x k, rows ordered like the im2col rows), widened as packed.
      const HalfMatrixView a_view{w.data + g * m * k, static_cast<std::ptrdiff_t>(k), 1, w.format, context.isa};
      const AStripSource a = half_a_source(a_view);
      if (direct) {
        gemm_f32_sourced(context, m, n, k, &a, MatrixView{}, nullptr,
                         MatrixView{x_group, static_cast<std::ptrdiff_t>(n), 1}, c, static_cast<std::ptrdiff_t>(n), apply);
        continue;
      }
      // As with packed weights: the im2col matrix is filled strip by strip, never stored whole.
      const Im2colSource source{&s, x_group, im2col_strip_for(context.isa)};
      const BStripSource b{fill_im2col_strip, &source};
      gemm_f32_sourced(context, m, n, k, &a, MatrixView{}, &b, MatrixView{}, c, static_cast<std::ptrdiff_t>(n), apply);
    }
  }
}

std::size_t conv_transpose2d_workspace_floats(const Conv2dShape& s) noexcept {
  return s.out_per_group() * s.taps() * s.in_plane();
}

void conv_transpose2d_f32(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w,
                          const float* bias, float* y, float* workspace) {
  const std::size_t c_group = s.in_per_group(), m_group = s.out_per_group(), taps = s.taps();
  const std::size_t in_plane = s.in_plane(), out_plane = s.out_plane();
  if (s.batch == 0 || m_group == 0 || out_plane == 0) return;
  for (std::size_t image = 0; image < s.batch; ++image) {
    for (std::size_t g = 0; g < s.groups; ++g) {
      // col[(ocl, tap), pos] = sum over the group's channels c (increasing, from +0) of
      // w[c][ocl][tap] * x[c][pos]: A is the group's weights read transposed.
      const MatrixView a{w + g * c_group * m_group * taps, 1, static_cast<std::ptrdiff_t>(m_group * taps)};
      const MatrixView b{x + (image * s.in_channels + g * c_group) * in_plane, static_cast<std::ptrdiff_t>(in_plane),
                         1};
      gemm_f32(context, m_group * taps, in_plane, c_group, a, b, workspace, static_cast<std::ptrdiff_t>(in_plane));
      // col2im: one chunk per output plane (a constant of the shape).
      const double estimate = static_cast<double>(m_group) *
                              static_cast<double>(taps * in_plane + out_plane) * kCopyNanoseconds;
      context.parallel_for(m_group, estimate, [&](std::size_t ocl) {
        const std::size_t oc = g * m_group + ocl;
        col2im_plane_f32(s, workspace + ocl * taps * in_plane, bias != nullptr ? bias + oc : nullptr, context.exact,
                         y + (image * s.out_channels + oc) * out_plane);
      });
    }
  }
}

}  // namespace onemodel::opt
