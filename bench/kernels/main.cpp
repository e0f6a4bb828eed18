// The kernel registry's benchmark (docs/design.md, "Kernel registry"; DESIGN.md rule 6): reads
// every family's registry list, prints each variant (its ISA, whether this CPU runs it, which
// path dispatches it) and times each variant this machine runs on one fixed problem per family,
// fast and exact mode, one thread, through the family's own entry point with the path capped at
// the variant's ISA. A measurement is bench/support/timing.hpp's: the median of three repetitions
// of calls run for at least 80 ms after two warm-up calls, with the process CPU time per call.
//
// Usage: bench_kernels [--list] [--families NAME,...]   (the family names --list prints; some
// families are listed only, their own benchmarks time them on the zoo's shapes: bench_conv for
// depthwise, bench_pool for pool, bench_quantize for quantize)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/support/timing.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/attention/attention_variants.hpp"
#include "optimized/kernels/conv/depthwise_plane.hpp"
#include "optimized/kernels/conv/im2col.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/elementwise/elementwise_paths.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_path.hpp"
#include "optimized/kernels/int8gemm/int8_gemm.hpp"
#include "optimized/kernels/layernorm/layernorm.hpp"
#include "optimized/kernels/layernorm/layernorm_variants.hpp"
#include "optimized/kernels/pool/pool_row.hpp"
#include "optimized/kernels/quantize/quantize.hpp"
#include "optimized/kernels/reduce/reduce.hpp"
#include "optimized/kernels/reduce/reduce_variants.hpp"
#include "optimized/kernels/softmax/softmax.hpp"
#include "optimized/kernels/softmax/softmax_variants.hpp"
#include "optimized/kernels/transpose/tile_paths.hpp"
#include "optimized/kernels/transpose/transpose.hpp"
#include "optimized/kernels/vexp/vexp.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"
#include "optimized/runtime/half_conversions.hpp"

namespace {

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;

// One listed variant as this program reports it.
struct Entry {
  std::string name;
  Isa isa = Isa::Scalar;
  bool runs_here = false;
  bool dispatched = false;  // chosen when the path is capped at its own ISA
};

template <class Variant>
std::vector<Entry> entries_of(std::span<const Variant> list) {
  std::vector<Entry> out;
  for (const Variant& v : list) {
    const bool here = onemodel::opt::variant_runs_here(v);
    const bool dispatched = here && &list[onemodel::opt::first_allowed(list, v.isa)] == &v;
    out.push_back(Entry{std::string(v.name), v.isa, here, dispatched});
  }
  return out;
}

// A family: its variants, one problem (`run` on a path and mode) and the problem's size.
struct Family {
  std::string name;
  std::vector<Entry> variants;
  // The problem on a path and mode; `variant` is the entry's position in the list (used by a family
  // whose tests and benchmark name each variant, below).
  std::function<void(const KernelContext&, std::size_t variant)> run;
  double work = 0;          // flops (gemm) or elements
  bool flops = false;       // report GFLOP/s rather than ns per element
  std::string problem;
  // Two variants share a level (the integer product's VNNI and plain AVX-512): each is run by name
  // rather than by capping the path at its ISA.
  bool names_variants = false;
};

std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// The problems' buffers live as long as the program (allocated once, outside the timing).
struct Buffers {
  static constexpr std::size_t kGemm = 256;
  static constexpr std::size_t kElements = 65536;
  static constexpr std::size_t kRows = 256, kSoftmaxCols = 1000, kNormCols = 768, kReduceCols = 4096;
  static constexpr std::size_t kSide = 1024;
  std::vector<float> a = random_floats(kGemm * kGemm, -1, 1, 1), b = random_floats(kGemm * kGemm, -1, 1, 2),
                     c = std::vector<float>(kGemm * kGemm);
  std::vector<float> x = random_floats(kElements, -8, 8, 3), y = std::vector<float>(kElements);
  std::vector<float> negative = random_floats(kElements, -80, 0, 4);
  std::vector<float> rows = random_floats(kRows * kReduceCols, -4, 4, 5),
                     rows_out = std::vector<float>(kRows * kReduceCols);
  std::vector<float> scale = random_floats(kNormCols, 0.5f, 1.5f, 6), bias = random_floats(kNormCols, -1, 1, 7);
  std::vector<float> square = random_floats(kSide * kSide, -1, 1, 8), square_out = std::vector<float>(kSide * kSide);
  std::vector<std::uint8_t> bytes_a = std::vector<std::uint8_t>(kGemm * kGemm, 200),
                            bytes_b = std::vector<std::uint8_t>(kGemm * kGemm, 0xF3);
  std::vector<std::int32_t> c32 = std::vector<std::int32_t>(kGemm * kGemm);
  std::vector<std::uint16_t> halves = std::vector<std::uint16_t>(kElements, 0x3C01);
};

std::vector<Family> families(Buffers& m) {
  namespace opt = onemodel::opt;
  std::vector<Family> out;
  constexpr std::size_t g = Buffers::kGemm;  // constexpr: the lambdas read it without capturing it
  out.push_back(Family{"gemm", entries_of(opt::gemm::variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::gemm_f32(cx, g, g, g, opt::MatrixView{m.a.data(), static_cast<std::ptrdiff_t>(g), 1},
                                       opt::MatrixView{m.b.data(), static_cast<std::ptrdiff_t>(g), 1}, m.c.data(),
                                       static_cast<std::ptrdiff_t>(g));
                       },
                       2.0 * static_cast<double>(g * g * g), true, "256 x 256 x 256"});
  out.push_back(Family{"elementwise", entries_of(opt::ew::variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::ew::UnaryArgs sigmoid;
                         sigmoid.op = opt::ew::UnaryOp::Sigmoid;
                         const opt::ew::UnaryArgs args = opt::ew::for_mode(sigmoid, cx.exact);
                         opt::ew::unary_f32(cx, args, m.x.data(), m.y.data(), Buffers::kElements);
                       },
                       static_cast<double>(Buffers::kElements), false, "Sigmoid, 65536 elements"});
  out.push_back(Family{"softmax", entries_of(opt::softmax_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::softmax_rows_f32(cx, m.rows.data(), m.rows_out.data(), Buffers::kRows,
                                               Buffers::kSoftmaxCols);
                       },
                       static_cast<double>(Buffers::kRows * Buffers::kSoftmaxCols), false, "256 rows x 1000"});
  out.push_back(Family{"layernorm", entries_of(opt::layernorm_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::LayerNormArgs args;
                         args.x = m.rows.data();
                         args.y = m.rows_out.data();
                         args.rows = Buffers::kRows;
                         args.cols = Buffers::kNormCols;
                         args.scale = m.scale.data();
                         args.bias = m.bias.data();
                         opt::layer_norm_f32(cx, args);
                       },
                       static_cast<double>(Buffers::kRows * Buffers::kNormCols), false, "256 rows x 768"});
  out.push_back(Family{"reduce", entries_of(opt::reduce_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::reduce_f32(cx, opt::ReduceKind::Sum, opt::ReduceTerm::Identity, m.rows.data(),
                                         m.rows_out.data(), Buffers::kRows, Buffers::kReduceCols, 1);
                       },
                       static_cast<double>(Buffers::kRows * Buffers::kReduceCols), false, "Sum, 256 rows x 4096"});
  out.push_back(Family{"vexp", entries_of(opt::vexp_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         if (cx.exact) {
                           opt::exp_non_positive_f32(cx.isa, m.negative.data(), m.y.data(), Buffers::kElements);
                         } else {
                           opt::fast_exp_f32(cx.isa, m.negative.data(), m.y.data(), Buffers::kElements);
                         }
                       },
                       static_cast<double>(Buffers::kElements), false, "65536 values in [-80, 0]"});
  out.push_back(Family{"transpose", entries_of(opt::tr::variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         const std::int32_t shape[2] = {static_cast<std::int32_t>(Buffers::kSide),
                                                        static_cast<std::int32_t>(Buffers::kSide)};
                         const int perm[2] = {1, 0};
                         opt::tr::transpose(cx, 4, m.square.data(), shape, perm, m.square_out.data());
                       },
                       static_cast<double>(Buffers::kSide * Buffers::kSide), false, "1024 x 1024, 4-byte"});
  out.push_back(Family{"halfconv", entries_of(opt::halfconv_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         opt::widen_16_to_f32(cx.isa, m.halves.data(), m.y.data(), Buffers::kElements, false);
                       },
                       static_cast<double>(Buffers::kElements), false, "binary16 -> float32, 65536 values"});
  // The integer product: uint8 A times int8 B, packing of B included (mode does not apply: exact).
  Family int8{"int8gemm", entries_of(opt::int8::variants()),
              [&m](const KernelContext&, std::size_t variant) {
                const opt::int8::Path& path = opt::int8::variants()[variant];
                const opt::int8::Operand a{m.bytes_a.data(), false, g};
                const opt::int8::Operand b{m.bytes_b.data(), true, g};
                const std::int32_t za[1] = {128}, zb[1] = {0};
                const opt::int8::PackedB packed = opt::int8::pack_b(b, g, g, path.isa);
                opt::int8::gemm_on(path, g, a, za, packed, zb, m.c32.data(), g, nullptr);
              },
              2.0 * static_cast<double>(g * g * g), true, "256 x 256 x 256 u8 x s8, packing B included"};
  int8.names_variants = true;
  // Listed, not timed here: bench_conv --depthwise-blocked times the depthwise kernels on the zoo's
  // shapes.
  out.push_back(Family{"attention", entries_of(opt::attention_variants()),
                       [&m](const KernelContext& cx, std::size_t) {
                         // 4 heads of 128 queries and keys, 64 wide, contiguous, no mask.
                         constexpr std::size_t heads = 4, len = 128, d = 64;
                         const opt::AttentionStrides s{static_cast<std::ptrdiff_t>(heads * len * d),
                                                       static_cast<std::ptrdiff_t>(len * d), static_cast<std::ptrdiff_t>(d)};
                         opt::AttentionArgs args;
                         args.q = m.x.data();
                         args.k = m.x.data() + heads * len * d;
                         args.v = m.negative.data();
                         args.out = m.y.data();
                         args.batch = 1;
                         args.heads = heads;
                         args.q_len = args.kv_len = len;
                         args.d = args.dv = d;
                         args.q_strides = args.k_strides = args.v_strides = args.out_strides = s;
                         args.scale = 0.125f;
                         opt::attention_f32(cx, args);
                       },
                       2.0 * 4 * 128 * 128 * (64 + 64), true, "4 heads x 128 x 128, d 64"});
  out.push_back(Family{"depthwise", entries_of(opt::depthwise_variants()), nullptr, 0, false, ""});
  // Listed, not timed here: bench_conv times the convolutions whose products the fillers feed.
  out.push_back(Family{"im2col", entries_of(opt::im2col_variants()), nullptr, 0, false, ""});
  // Listed, not timed here: bench_pool times the pooling kernels.
  out.push_back(Family{"pool", entries_of(opt::pool::variants()), nullptr, 0, false, ""});
  // Listed, not timed here: bench_quantize times the quantization kernels.
  out.push_back(Family{"quantize", entries_of(opt::quantize::variants()), nullptr, 0, false, ""});
  out.push_back(std::move(int8));
  return out;
}

bool wanted(const std::string& list, const std::string& name) {
  if (list.empty()) return true;
  return ("," + list + ",").find("," + name + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  bool list_only = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) {
      list_only = true;
    } else if (std::strcmp(argv[i], "--families") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_kernels [--list] [--families gemm,softmax,...]\n");
      return 2;
    }
  }
  Buffers buffers;
  const std::vector<Family> all = families(buffers);
  std::printf("session path: %s\n", std::string(onemodel::opt::isa_path_name(onemodel::opt::select_isa())).c_str());
  std::printf("%-12s %-34s %-7s %-5s %s\n", "family", "variant", "isa", "here", "dispatched on its path");
  for (const Family& f : all) {
    if (!wanted(only, f.name)) continue;
    for (const Entry& e : f.variants) {
      std::printf("%-12s %-34s %-7s %-5s %s\n", f.name.c_str(), e.name.c_str(),
                  std::string(onemodel::opt::isa_name(e.isa)).c_str(), e.runs_here ? "yes" : "no",
                  !e.runs_here ? "-" : e.dispatched ? "yes" : f.names_variants ? "no (run by name)" : "NO (shadowed)");
    }
  }
  if (list_only) return 0;
  std::printf("\n%-12s %-34s %-5s %12s %12s %14s  %s\n", "family", "variant", "mode", "wall us", "cpu us",
              "rate (cpu)", "problem");
  for (const Family& f : all) {
    if (!wanted(only, f.name) || !f.run) continue;
    for (const Entry& e : f.variants) {
      if (!e.runs_here || !(e.dispatched || f.names_variants)) continue;
      const std::size_t index = static_cast<std::size_t>(&e - f.variants.data());
      for (const bool exact : {false, true}) {
        if (f.names_variants && !exact) continue;  // one mode: the integer product is exact in both
        const KernelContext context{e.isa, exact, nullptr};
        const onemodel::bench::Timing t = onemodel::bench::measure([&] { f.run(context, index); });
        char rate[32];
        if (f.flops) {
          std::snprintf(rate, sizeof rate, "%.1f GF/s", f.work / t.cpu * 1e-9);
        } else {
          std::snprintf(rate, sizeof rate, "%.3f ns/el", t.cpu * 1e9 / f.work);
        }
        std::printf("%-12s %-34s %-5s %12.1f %12.1f %14s  %s\n", f.name.c_str(), e.name.c_str(),
                    exact ? "exact" : "fast", t.wall * 1e6, t.cpu * 1e6, rate, f.problem.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
