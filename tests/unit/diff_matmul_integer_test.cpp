// Differential tests of the MatMulInteger and QLinearMatMul overrides (optimized/ops/
// op_matmul_integer.cpp, op_qlinear_matmul.cpp, the integer product kernel of int8.md) against the
// reference kernels through diff/op_harness.hpp:
// the reference's bits in both modes on every path of this machine at 1 and 2 threads, with B
// constant (packed at plan time) and not, uint8 and int8 operands in every mix, zero points absent,
// per tensor, per row of A and per column of B, 1-D operands, batch broadcasting both ways and
// empty axes. Integer results are exact, so fast mode must give the same bits too.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"

namespace onemodel::diff {
namespace {

Tensor bytes_tensor(DType type, const Shape& shape, std::mt19937& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return Tensor::from_bytes(type, shape, std::as_bytes(std::span<const std::uint8_t>(v)));
}

OpCase integer_case(const Shape& a, const Shape& b, DType ta, DType tb, int zero_points, std::mt19937& rng) {
  OpCase c;
  c.op = "MatMulInteger";
  c.opset = 10;
  c.inputs = {bytes_tensor(ta, a, rng), bytes_tensor(tb, b, rng)};
  const std::int64_t m = a.rank() >= 2 ? a[a.rank() - 2] : 1;
  const std::int64_t n = b.rank() >= 2 ? b[b.rank() - 1] : 1;
  if (zero_points >= 1) {
    // 1: one per operand; 2: per row of A and per column of B (2-D A and B only).
    c.inputs.push_back(bytes_tensor(ta, zero_points == 2 ? Shape{m} : Shape{}, rng));
    c.inputs.push_back(bytes_tensor(tb, zero_points == 2 ? Shape{n} : Shape{}, rng));
  }
  return c;
}

TEST(DiffMatMulInteger, ReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(13);
  const DType types[] = {DType::U8, DType::I8};
  std::vector<OpCase> cases;
  for (DType ta : types) {
    for (DType tb : types) {
      for (int zp = 0; zp <= 2; ++zp) {
        cases.push_back(integer_case(Shape{7, 13}, Shape{13, 19}, ta, tb, zp, rng));
        cases.push_back(integer_case(Shape{61, 70}, Shape{70, 33}, ta, tb, zp, rng));  // two row blocks
      }
      cases.push_back(integer_case(Shape{2, 3, 5, 9}, Shape{9, 4}, ta, tb, 1, rng));     // B broadcast
      cases.push_back(integer_case(Shape{5, 9}, Shape{3, 9, 4}, ta, tb, 1, rng));        // A broadcast
      cases.push_back(integer_case(Shape{9}, Shape{9, 4}, ta, tb, 0, rng));              // 1-D A
      cases.push_back(integer_case(Shape{5, 9}, Shape{9}, ta, tb, 0, rng));              // 1-D B
      cases.push_back(integer_case(Shape{0, 9}, Shape{9, 4}, ta, tb, 1, rng));           // no rows
      cases.push_back(integer_case(Shape{5, 0}, Shape{0, 4}, ta, tb, 1, rng));           // K = 0
    }
  }
  for (const OpCase& c : cases) {
    std::string shapes;
    for (const Tensor& t : c.inputs) shapes += " " + t.shape().to_string() + std::string(dtype_name(t.dtype()));
    for (const bool b_constant : {true, false}) {
      OpCase run = c;
      run.constant.assign(run.inputs.size(), b_constant);
      run.constant[0] = false;
      const std::string d = test_helpers::compare_everywhere(run, &tally);
      EXPECT_TRUE(d.empty()) << d << " for" << shapes << (b_constant ? " (B constant)" : "");
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

Tensor scales(const Shape& shape, std::mt19937& rng) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = static_cast<float>(rng() % 1000 + 1) / 65536.0f;
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

// QLinearMatMul: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point and the
// optional int32 bias per column; scales and zero points per tensor, or per row of A and column
// of B; uint8 and int8 output. Requantization rounds ties to even and clamps: extreme scales
// reach both ends of the output range.
TEST(DiffQLinearMatMul, ReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(29);
  const DType types[] = {DType::U8, DType::I8};
  for (DType ta : types) {
    for (DType tb : types) {
      for (DType ty : types) {
        for (const bool per_index : {false, true}) {
          for (const bool with_bias : {false, true}) {
            const std::int64_t m = 61, k = 53, n = 29;  // two row blocks of 48: the second thread has work
            OpCase c;
            c.op = "QLinearMatMul";
            c.opset = 10;
            c.inputs = {bytes_tensor(ta, Shape{m, k}, rng), scales(per_index ? Shape{m} : Shape{}, rng),
                        bytes_tensor(ta, per_index ? Shape{m} : Shape{}, rng), bytes_tensor(tb, Shape{k, n}, rng),
                        scales(per_index ? Shape{n} : Shape{}, rng), bytes_tensor(tb, per_index ? Shape{n} : Shape{}, rng),
                        scales(Shape{}, rng), bytes_tensor(ty, Shape{}, rng)};
            if (with_bias) {
              std::vector<std::int32_t> bias(static_cast<std::size_t>(n));
              for (auto& x : bias) x = static_cast<std::int32_t>(rng() % 20001) - 10000;
              c.inputs.push_back(Tensor::from_values<std::int32_t>(DType::I32, Shape{n}, std::span<const std::int32_t>(bias)));
            }
            for (const bool b_constant : {true, false}) {
              OpCase run = c;
              run.constant.assign(run.inputs.size(), true);
              run.constant[0] = false;
              run.constant[3] = b_constant;
              const std::string d = test_helpers::compare_everywhere(run, &tally);
              EXPECT_TRUE(d.empty()) << d << " for " << dtype_name(ta) << "x" << dtype_name(tb) << "->" << dtype_name(ty)
                                     << (per_index ? " per index" : "") << (with_bias ? " bias" : "");
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

// Scales with the special values of the requantization (spec/ops/quantization.md section 10):
// NaN, +-inf, -0, 0, negative, a denormal, huge and tiny values beside ordinary ones.
Tensor special_scales(const Shape& shape, std::mt19937& rng) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, -0.003f, 1e-40f, 1e30f, 1e-30f, 3.0f};
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = rng() % 2 == 0 ? specials[rng() % 10] : static_cast<float>(rng() % 1000 + 1) / 65536.0f;
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

// The vectorized requantization epilogue: rows of 37 (two vector blocks of 16 and a tail), a
// batch of two (the row's scale index is the row within its matrix), scales per row and column
// holding NaN, infinities, -0 and extremes, biases near the int32 limits (accumulator plus bias
// wraps modulo 2^32), every type mix, a's scale per tensor or per row and b's per tensor or per
// column in every combination; every output row is a chunk, so two threads share the call.
TEST(DiffQLinearMatMul, EpilogueSpecialScalesAndWrappingBias) {
  CaseTally tally;
  std::mt19937 rng(31);
  const DType types[] = {DType::U8, DType::I8};
  const std::int64_t m = 5, k = 20, n = 37;
  for (DType ta : types) {
    for (DType tb : types) {
      for (DType ty : types) {
        for (int per : {0, 1, 2, 3}) {  // bit 0: a's scale per row; bit 1: b's scale (and bias) per column
          const bool per_row = (per & 1) != 0, per_column = (per & 2) != 0;
          for (int draw = 0; draw < 2; ++draw) {
            OpCase c;
            c.op = "QLinearMatMul";
            c.opset = 10;
            std::vector<std::int32_t> bias(per_column ? static_cast<std::size_t>(n) : 1);
            for (auto& x : bias) x = (rng() % 2 == 0 ? 2147483647 - static_cast<std::int32_t>(rng() % 3000)
                                                     : -2147483647 + static_cast<std::int32_t>(rng() % 3000));
            c.inputs = {bytes_tensor(ta, Shape{2, m, k}, rng), special_scales(per_row ? Shape{m} : Shape{}, rng),
                        bytes_tensor(ta, per_row ? Shape{m} : Shape{}, rng), bytes_tensor(tb, Shape{k, n}, rng),
                        special_scales(per_column ? Shape{n} : Shape{}, rng), bytes_tensor(tb, per_column ? Shape{n} : Shape{}, rng),
                        draw == 0 ? special_scales(Shape{}, rng) : scales(Shape{}, rng), bytes_tensor(ty, Shape{}, rng),
                        Tensor::from_values<std::int32_t>(DType::I32, per_column ? Shape{n} : Shape{1},
                                                          std::span<const std::int32_t>(bias))};
            c.constant.assign(c.inputs.size(), true);
            c.constant[0] = false;
            const std::string d = test_helpers::compare_everywhere(c, &tally);
            EXPECT_TRUE(d.empty()) << d << " for " << dtype_name(ta) << "x" << dtype_name(tb) << "->" << dtype_name(ty)
                                   << (per_row ? " a per row" : "") << (per_column ? " b per column" : "");
          }
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, tally.cases) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
