// Softmax and LogSoftmax kernels (optimized/kernels/softmax/) in fast mode with NaN inputs, against
// spec/ops/norms.md: "every stored float32 NaN rewritten to 0x7FC00000", and a row holding NaN is
// NaN throughout ("Softmax"), in fast and exact mode alike ("The reference engine runs the same
// code in fast and exact mode"). Written for tools/mutate (issue 10): a fast path that let a NaN
// payload through passed every earlier test, which checked NaN rows in exact mode only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/kernels/float_bits.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/softmax/softmax.hpp"
#include "optimized/kernels/softmax/softmax_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using onemodel::test::bits;
using onemodel::test::from_bits;

using onemodel::opt::Isa;
using onemodel::opt::KernelContext;
using onemodel::opt::ThreadPool;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> softmax_variant_paths() {
  return onemodel::opt::kernel_tests::variant_paths(onemodel::opt::softmax_variants());
}

float plain_log(float v) { return std::log(v); }

TEST(SoftmaxMutation, NanRowsAreCanonicalNanInBothModes) {
  for (std::size_t cols : {1u, 5u, 16u, 17u, 40u}) {
    // Row 0: one NaN with a payload (and sign); row 1: -NaN payload among large values;
    // row 2: a normal row, which must stay free of NaN.
    std::vector<float> x(3 * cols);
    for (std::size_t j = 0; j < cols; ++j) {
      x[j] = static_cast<float>(j) * 0.5f;
      x[cols + j] = 30.0f - static_cast<float>(j);
      x[2 * cols + j] = static_cast<float>(j % 3);
    }
    x[cols / 2] = from_bits(0x7FA12345u);        // signalling payload
    x[cols + cols - 1] = from_bits(0xFFC0BEEFu);  // negative quiet payload
    for (Isa isa : softmax_variant_paths()) {
      for (bool exact : {false, true}) {
        for (int threads : {1, 2}) {
          ThreadPool pool(threads);
          const KernelContext context{isa, exact, &pool};
          for (bool log : {false, true}) {
            std::vector<float> y(x.size(), 9.0f);
            if (log) {
              onemodel::opt::log_softmax_rows_f32(context, x.data(), y.data(), 3, cols, plain_log);
            } else {
              onemodel::opt::softmax_rows_f32(context, x.data(), y.data(), 3, cols);
            }
            for (std::size_t j = 0; j < 2 * cols; ++j) {
              ASSERT_EQ(bits(y[j]), 0x7FC00000u) << (log ? "log_softmax" : "softmax") << " isa "
                                                 << onemodel::opt::isa_name(isa) << " exact " << exact << " cols "
                                                 << cols << " element " << j;
            }
            for (std::size_t j = 2 * cols; j < 3 * cols; ++j) ASSERT_FALSE(std::isnan(y[j])) << "element " << j;
          }
        }
      }
    }
  }
}

}  // namespace
