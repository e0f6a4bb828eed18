// ReduceMax and ReduceMin (optimized/kernels/reduce/) at the edges spec/ops/norms.md states:
// "only by a strictly greater (max) or smaller (min) one, so NaN is ignored unless it is the first
// element, which gives NaN", and a maximum of equal zeros keeps the first one (a later -0 or +0 is
// not greater). Expected values are written from that text, for rows (the reduced axis innermost)
// and columns, every length from 1 to 40, every path, 1 and 2 threads. Written for tools/mutate
// (issue 10): a kernel that forgot the first-element NaN of a one-element row passed every earlier
// test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/kernels/float_bits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/reduce/reduce.hpp"
#include "optimized/kernels/reduce/reduce_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::test::bits;
using onemodel::test::from_bits;

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ReduceKind;
using onemodel::opt::ReduceTerm;
using onemodel::opt::ThreadPool;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> reduce_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(onemodel::opt::reduce_variants());
}

// The text's rule, literally: the first element starts, a strictly greater (smaller) one replaces.
float extreme(const std::vector<float>& v, bool is_max) {
  if (v.empty()) return is_max ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  float r = v[0];
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (is_max ? v[i] > r : v[i] < r) r = v[i];
  }
  return r;
}

TEST(ReduceMutation, FirstElementNanAndSignedZeros) {
  for (std::size_t n = 1; n <= 40; ++n) {
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::vector<float> row(n);
      for (std::size_t i = 0; i < n; ++i) row[i] = static_cast<float>((i * 7) % 5) - 4.0f;  // all <= 0
      if (pattern == 0) row[0] = from_bits(0x7FC00001u);                  // NaN first: the result
      if (pattern == 1 && n > 1) row[n - 1] = from_bits(0x7FC00002u);     // NaN later: ignored
      if (pattern == 2) {                                                  // zeros of both signs
        for (std::size_t i = 0; i < n; ++i) row[i] = (i % 2 == 0) ? -0.0f : 0.0f;
      }
      if (pattern == 3) {
        for (std::size_t i = 0; i < n; ++i) row[i] = (i % 3 == 0) ? 0.0f : -0.0f;
      }
      for (bool is_max : {true, false}) {
        const float want = extreme(row, is_max);
        const ReduceKind kind = is_max ? ReduceKind::Max : ReduceKind::Min;
        for (Isa isa : reduce_variant_paths()) {
          for (int threads : {1, 2}) {
            ThreadPool pool(threads);
            const KernelContext context{isa, true, &pool};
            // As rows: outer 2 (the same row twice), reduced n, inner 1.
            std::vector<float> rows(row);
            rows.insert(rows.end(), row.begin(), row.end());
            float out_rows[2] = {1.0f, 1.0f};
            onemodel::opt::reduce_f32(context, kind, ReduceTerm::Identity, rows.data(), out_rows, 2, n, 1);
            // As columns: outer 1, reduced n, inner 3 (the row in every column).
            std::vector<float> cols(3 * n);
            for (std::size_t k = 0; k < n; ++k)
              for (std::size_t c = 0; c < 3; ++c) cols[k * 3 + c] = row[k];
            float out_cols[3] = {1.0f, 1.0f, 1.0f};
            onemodel::opt::reduce_f32(context, kind, ReduceTerm::Identity, cols.data(), out_cols, 1, n, 3);
            const bool nan = want != want;
            for (float got : {out_rows[0], out_rows[1], out_cols[0], out_cols[1], out_cols[2]}) {
              if (nan) {
                ASSERT_TRUE(got != got) << "n " << n << " pattern " << pattern << " max " << is_max << " isa "
                                        << onemodel::opt::isa_name(isa);
              } else {
                ASSERT_EQ(bits(got), bits(want)) << "n " << n << " pattern " << pattern << " max " << is_max
                                                 << " isa " << onemodel::opt::isa_name(isa);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
