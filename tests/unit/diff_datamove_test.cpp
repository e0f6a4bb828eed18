// Differential tests of the data-movement overrides (optimized/ops/op_cast.cpp, op_pow.cpp,
// op_pad.cpp, op_slice.cpp) against the reference kernels through diff/op_harness.hpp: the same
// bits in exact and fast mode on every instruction-set path of this machine at 1 and 2 threads
// (test_helpers::compare_everywhere). Cases come from seeded generators: every pair of stored
// element types for Cast with raw bit patterns (NaN payloads, infinities, subnormals, values past
// every integer range, ties), Pow exponents of every exponent type and the special values of
// spec/exact-transcendentals.md section 10.2, Pad over ranks 1-5 with negative and oversized
// pads in every mode and the axes input, Slice over ranks 1-5 with negative axes, negative and
// large steps, the end sentinels, empty results and both the attribute and input forms. Error
// cases compare the error kind of the two engines. Each test requires how many cases the override
// served, so a fallback cannot pass as an override test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

namespace ib = ir_builder;
using test_helpers::compare_everywhere;

constexpr DType kStored[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8,  DType::I16, DType::I32,
                             DType::I64, DType::U8,  DType::U16, DType::U32,  DType::U64, DType::Bool};

Shape shape_of(const std::vector<std::int64_t>& e) { return Shape(std::span<const std::int64_t>(e)); }

template <class T>
void put(std::vector<std::byte>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// One element of type t: raw bits (payloaded NaNs, infinities, subnormals, huge values), special
// values, ties for rounding (k + 0.5), values near the integer ranges, or small values.
void random_element(DType t, std::vector<std::byte>& bytes, std::size_t i, std::mt19937_64& rng) {
  const std::uint64_t bits = rng();
  const int pick = static_cast<int>(rng() % 5);
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN(),
                             2147483647.0,
                             2147483648.0,
                             -2147483649.0,
                             9.3e18,
                             -9.3e18,
                             1.8446744073709552e19,
                             255.5,
                             -128.5,
                             65504.0,
                             65520.0,
                             1e-40,
                             3.4028235677973366e38,
                             1e39,
                             0.5,
                             -0.5,
                             1.5,
                             2.5};
  const double value = pick == 1   ? specials[rng() % (sizeof specials / sizeof specials[0])]
                       : pick == 2 ? static_cast<double>(static_cast<std::int64_t>(rng() % 601) - 300) + 0.5
                                   : static_cast<double>(static_cast<std::int64_t>(rng() % 601) - 300) * 0.37;
  switch (t) {
    case DType::F32: {
      float f = static_cast<float>(value);
      if (pick == 0) std::memcpy(&f, &bits, 4);
      if (pick == 4) {  // a NaN with a payload, either sign, signalling or quiet
        const std::uint32_t u = 0x7F800001u | static_cast<std::uint32_t>(bits & 0x807FFFFFu);
        std::memcpy(&f, &u, 4);
      }
      return put(bytes, i, f);
    }
    case DType::F64: {
      double d = value;
      if (pick == 0 || pick == 4) std::memcpy(&d, &bits, 8);
      return put(bytes, i, d);
    }
    case DType::F16:
    case DType::BF16: return put(bytes, i, static_cast<std::uint16_t>(bits));
    case DType::Bool: return put(bytes, i, static_cast<std::uint8_t>(bits & 1));
    default: break;
  }
  const std::int64_t small = static_cast<std::int64_t>(rng() % 601) - 300;
  const std::uint64_t v = pick == 0 ? bits : static_cast<std::uint64_t>(small);
  switch (t) {
    case DType::I8:
    case DType::U8: return put(bytes, i, static_cast<std::uint8_t>(v));
    case DType::I16:
    case DType::U16: return put(bytes, i, static_cast<std::uint16_t>(v));
    case DType::I32:
    case DType::U32: return put(bytes, i, static_cast<std::uint32_t>(v));
    default: return put(bytes, i, v);
  }
}

Tensor random_tensor(DType t, const std::vector<std::int64_t>& dims, std::mt19937_64& rng) {
  std::size_t n = 1;
  for (std::int64_t d : dims) n *= static_cast<std::size_t>(d);
  std::vector<std::byte> bytes(n * dtype_size(t));
  for (std::size_t i = 0; i < n; ++i) random_element(t, bytes, i, rng);
  return Tensor::from_bytes(t, shape_of(dims), bytes);
}

Tensor i64_tensor(const std::vector<std::int64_t>& v) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())},
                                           std::span<const std::int64_t>(v));
}

Tensor i32_tensor(const std::vector<std::int64_t>& v) {
  std::vector<std::int32_t> w(v.begin(), v.end());
  return Tensor::from_values<std::int32_t>(DType::I32, Shape{static_cast<std::int64_t>(w.size())},
                                           std::span<const std::int32_t>(w));
}

// "kind N" of the SessionError a run throws, "other: ..." for another exception, "none".
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SessionError& e) {
    return "kind " + std::to_string(static_cast<int>(e.kind()));
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
  return "none";
}

// The reference's error and the optimized engine's on every path at 1 and 2 threads, both modes.
std::string error_difference(const OpCase& c) {
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const std::string want = error_of([&] { run_reference(c, mode); });
    if (want == "none") return "the reference accepts the case";
    for (opt::Isa isa : opt::available_isas()) {
      for (int threads : {1, 2}) {
        const std::string got = error_of([&] { run_optimized(c, mode, isa, threads); });
        if (got != want) return std::string(opt::isa_name(isa)) + ": " + got + " vs the reference's " + want;
      }
    }
  }
  return {};
}

TEST(DiffDatamove, OverridesAreRegistered) {
  for (std::int64_t opset : {6, 13, 19, 21}) EXPECT_TRUE(has_override("Cast", opset)) << opset;
  for (std::int64_t opset : {7, 13, 15}) EXPECT_TRUE(has_override("Pow", opset)) << opset;
  for (std::int64_t opset : {11, 13, 18, 19}) EXPECT_TRUE(has_override("Pad", opset)) << opset;
  EXPECT_FALSE(has_override("Pad", 2));  // the attribute form stays the reference
  for (std::int64_t opset : {1, 9, 10, 13}) EXPECT_TRUE(has_override("Slice", opset)) << opset;
  for (std::int64_t opset : {1, 11, 13}) EXPECT_TRUE(has_override("Gather", opset)) << opset;
  for (const char* op : {"Where", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not"}) {
    EXPECT_TRUE(has_override(op, 16)) << op;
  }
}

// ---------------------------------------------------------------------------------------------
// Cast

OpCase cast_case(DType from, DType to, const std::vector<std::int64_t>& dims, std::mt19937_64& rng) {
  OpCase c;
  c.op = "Cast";
  c.opset = 19;
  c.attributes = {ib::int_attr("to", static_cast<std::int64_t>(to))};
  c.inputs = {random_tensor(from, dims, rng)};
  return c;
}

TEST(DiffDatamove, CastEveryPair) {
  CaseTally tally;
  std::mt19937_64 rng(15);
  for (DType from : kStored) {
    for (DType to : kStored) {
      for (const std::vector<std::int64_t>& dims : std::vector<std::vector<std::int64_t>>{{}, {0}, {257}, {3, 0, 2}, {4, 9, 13}}) {
        const OpCase c = cast_case(from, to, dims, rng);
        EXPECT_EQ(compare_everywhere(c, &tally), "") << dtype_name(from) << " -> " << dtype_name(to);
      }
    }
  }
  // Every case runs the override (there is no fallback for a contiguous input).
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

TEST(DiffDatamove, CastLargeSplitsBetweenThreads) {
  CaseTally tally;
  std::mt19937_64 rng(16);
  const std::pair<DType, DType> pairs[] = {{DType::F32, DType::F32}, {DType::F32, DType::F16}, {DType::F16, DType::F32},
                                           {DType::F32, DType::I64}, {DType::I64, DType::F32}, {DType::Bool, DType::F32},
                                           {DType::F32, DType::Bool}, {DType::I32, DType::I64}, {DType::F64, DType::F32}};
  for (const auto& [from, to] : pairs) {
    EXPECT_EQ(compare_everywhere(cast_case(from, to, {3, 197, 197}, rng), &tally), "")
        << dtype_name(from) << " -> " << dtype_name(to);
  }
  EXPECT_EQ(tally.override_cases, std::size(pairs)) << tally.summary();
  EXPECT_EQ(tally.shared_cases, std::size(pairs)) << tally.summary();
}

// ---------------------------------------------------------------------------------------------
// Pow

OpCase pow_case(const std::vector<std::int64_t>& dims, const Tensor& exponent, std::mt19937_64& rng) {
  OpCase c;
  c.op = "Pow";
  c.opset = 15;
  c.inputs = {random_tensor(DType::F32, dims, rng), exponent};
  return c;
}

TEST(DiffDatamove, PowOneElementExponents) {
  CaseTally tally;
  std::mt19937_64 rng(17);
  const float inf = std::numeric_limits<float>::infinity();
  const float exponents[] = {2.0f, 3.0f, 1.0f, 0.0f, -0.0f, 0.5f, -1.0f, -2.0f, 4.0f, 1.5f, inf, -inf,
                             std::numeric_limits<float>::quiet_NaN(), 1e10f};
  std::size_t served = 0;
  for (float y : exponents) {
    for (const std::vector<std::int64_t>& dims : std::vector<std::vector<std::int64_t>>{{0}, {1}, {5, 7}, {2, 3, 6000}}) {
      for (const std::vector<std::int64_t>& yd : std::vector<std::vector<std::int64_t>>{{}, {1}, {1, 1, 1, 1}}) {
        const Tensor e = Tensor::from_values<float>(DType::F32, shape_of(yd), std::span<const float>(&y, 1));
        EXPECT_EQ(compare_everywhere(pow_case(dims, e, rng), &tally), "") << y;
        ++served;
      }
    }
  }
  // Exponents of the other types: converted to double as the reference converts them.
  const double d2 = 2.0;
  const double d07 = 0.7;
  const std::int64_t i3 = 3, ibig = (std::int64_t{1} << 53) + 1, ineg = -3;
  const std::uint64_t u2 = 2;
  const std::int32_t i2 = 2;
  const std::uint32_t u5 = 5;
  const Tensor typed[] = {Tensor::from_values<double>(DType::F64, Shape{}, std::span<const double>(&d2, 1)),
                          Tensor::from_values<double>(DType::F64, Shape{}, std::span<const double>(&d07, 1)),
                          Tensor::from_values<std::int64_t>(DType::I64, Shape{}, std::span<const std::int64_t>(&i3, 1)),
                          Tensor::from_values<std::int64_t>(DType::I64, Shape{}, std::span<const std::int64_t>(&ibig, 1)),
                          Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, std::span<const std::int64_t>(&ineg, 1)),
                          Tensor::from_values<std::uint64_t>(DType::U64, Shape{}, std::span<const std::uint64_t>(&u2, 1)),
                          Tensor::from_values<std::int32_t>(DType::I32, Shape{}, std::span<const std::int32_t>(&i2, 1)),
                          Tensor::from_values<std::uint32_t>(DType::U32, Shape{}, std::span<const std::uint32_t>(&u5, 1))};
  for (const Tensor& e : typed) {
    EXPECT_EQ(compare_everywhere(pow_case({4, 33}, e, rng), &tally), "");
    ++served;
  }
  EXPECT_EQ(tally.override_cases, served) << tally.summary();
  EXPECT_GE(tally.shared_cases, 3u * std::size(exponents)) << tally.summary();
}

TEST(DiffDatamove, PowOtherCasesStayTheReference) {
  CaseTally tally;
  std::mt19937_64 rng(18);
  // A full exponent tensor, a broadcast base, a double base, an integer base.
  EXPECT_EQ(compare_everywhere(pow_case({3, 4}, random_tensor(DType::F32, {3, 4}, rng), rng), &tally), "");
  EXPECT_EQ(compare_everywhere(pow_case({1, 4}, random_tensor(DType::F32, {3, 1}, rng), rng), &tally), "");
  OpCase d;
  d.op = "Pow";
  d.opset = 15;
  const float two = 2.0f;
  d.inputs = {random_tensor(DType::F64, {5}, rng), Tensor::from_values<float>(DType::F32, Shape{}, std::span<const float>(&two, 1))};
  EXPECT_EQ(compare_everywhere(d, &tally), "");
  d.inputs[0] = random_tensor(DType::I32, {5}, rng);
  EXPECT_EQ(compare_everywhere(d, &tally), "");
  EXPECT_EQ(tally.fallback_cases, 4u) << tally.summary();
}

// ---------------------------------------------------------------------------------------------
// Pad

struct PadSpecCase {
  std::string mode = "constant";
  std::int64_t opset = 13;
  std::vector<std::int64_t> pads;
  std::vector<std::int64_t> axes;  // opset 18+: the axes input when not empty
  bool with_value = false;
  bool empty_value = false;
  bool pads_constant = true;
  DType type = DType::F32;
};

OpCase pad_case(const std::vector<std::int64_t>& dims, const PadSpecCase& s, std::mt19937_64& rng) {
  OpCase c;
  c.op = "Pad";
  c.opset = s.opset;
  c.attributes = {ib::string_attr("mode", s.mode)};
  c.inputs = {random_tensor(s.type, dims, rng), i64_tensor(s.pads)};
  Tensor value;
  if (s.with_value) value = random_tensor(s.type, s.empty_value ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{}, rng);
  c.inputs.push_back(value);
  if (!s.axes.empty()) c.inputs.push_back(i64_tensor(s.axes));
  c.constant = {false, s.pads_constant, true, true};
  return c;
}

TEST(DiffDatamove, PadRandomShapesModesAndPads) {
  CaseTally tally;
  std::mt19937_64 rng(19);
  const DType types[] = {DType::F32, DType::I64, DType::U8, DType::F16, DType::F64, DType::Bool};
  std::size_t served = 0;
  for (int iteration = 0; iteration < 400; ++iteration) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<std::int64_t>(rng() % 6));
    PadSpecCase s;
    const int mode = static_cast<int>(rng() % 3);
    s.mode = mode == 0 ? "constant" : mode == 1 ? "edge" : "reflect";
    s.type = types[rng() % std::size(types)];
    s.with_value = mode == 0 && rng() % 2 == 0;
    s.empty_value = s.with_value && rng() % 4 == 0;
    s.pads_constant = rng() % 3 != 0;
    const bool use_axes = rng() % 3 == 0;
    if (use_axes) s.opset = 18;
    std::vector<int> listed;
    for (int d = 0; d < rank; ++d) {
      if (!use_axes || rng() % 2 == 0) listed.push_back(d);
    }
    if (listed.empty()) listed.push_back(0);
    std::vector<std::int64_t> begin, end;
    for (int d : listed) {
      std::int64_t n = dims[static_cast<std::size_t>(d)];
      if (mode != 0 && n == 0) n = dims[static_cast<std::size_t>(d)] = 2;  // non-constant modes need elements
      // pads in [-n, 5]: crops, zero and pads past the extent (reflect continues periodically)
      std::int64_t b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n + 6)) - n;
      std::int64_t e = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n + 6)) - n;
      if (n + b + e < 0) e = -n - b;
      begin.push_back(b);
      end.push_back(e);
      if (use_axes) s.axes.push_back(rng() % 2 == 0 ? d : d - rank);  // negative axes too
    }
    s.pads = begin;
    s.pads.insert(s.pads.end(), end.begin(), end.end());
    const OpCase c = pad_case(dims, s, rng);
    const std::string d = compare_everywhere(c, &tally);
    EXPECT_EQ(d, "") << s.mode << " rank " << rank << " iteration " << iteration;
    ++served;
  }
  EXPECT_EQ(tally.override_cases, served) << tally.summary();
}

TEST(DiffDatamove, PadLargeAndModelShapes) {
  CaseTally tally;
  std::mt19937_64 rng(20);
  PadSpecCase swin;  // Swin-T: NHWC padded on H and W at the end
  swin.pads = {0, 0, 0, 0, 0, 3, 5, 0};
  EXPECT_EQ(compare_everywhere(pad_case({1, 53, 51, 96}, swin, rng), &tally), "");
  PadSpecCase conv;  // a convolution's padding, every mode
  conv.pads = {0, 0, 2, 3, 0, 0, 2, 1};
  for (const char* mode : {"constant", "edge", "reflect"}) {
    conv.mode = mode;
    EXPECT_EQ(compare_everywhere(pad_case({2, 8, 60, 70}, conv, rng), &tally), "") << mode;
  }
  PadSpecCase crop;  // negative pads crop, with a non-zero fill
  crop.pads = {-1, 2, -3, 1, -2, 4};
  crop.with_value = true;
  EXPECT_EQ(compare_everywhere(pad_case({5, 30, 900}, crop, rng), &tally), "");
  EXPECT_EQ(tally.override_cases, 5u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 5u) << tally.summary();
}

TEST(DiffDatamove, PadReferenceCasesAndErrors) {
  CaseTally tally;
  std::mt19937_64 rng(21);
  PadSpecCase wrap;
  wrap.opset = 19;
  wrap.mode = "wrap";
  wrap.pads = {1, -1, 2, 3};
  EXPECT_EQ(compare_everywhere(pad_case({3, 4}, wrap, rng), &tally), "");
  EXPECT_EQ(tally.fallback_cases, 1u) << tally.summary();
  // Errors: a fill value of another type, too few pads, an axis listed twice, a crop below zero,
  // edge on an empty axis, an unknown mode.
  PadSpecCase s;
  s.pads = {1, 1, 1, 1};
  OpCase typed = pad_case({3, 4}, s, rng);
  typed.inputs[2] = random_tensor(DType::F64, {}, rng);
  EXPECT_EQ(error_difference(typed), "");
  s.pads = {1, 1, 1};
  EXPECT_EQ(error_difference(pad_case({3, 4}, s, rng)), "");
  s.opset = 18;
  s.pads = {1, 1, 1, 1};
  s.axes = {1, -1};
  EXPECT_EQ(error_difference(pad_case({3, 4}, s, rng)), "");
  s.axes.clear();
  s.opset = 13;
  s.pads = {-2, 0, -2, 0};
  EXPECT_EQ(error_difference(pad_case({3, 4}, s, rng)), "");
  s.mode = "edge";
  s.pads = {1, 0, 1, 0};
  EXPECT_EQ(error_difference(pad_case({0, 4}, s, rng)), "");
  s.mode = "mirror";
  EXPECT_EQ(error_difference(pad_case({3, 4}, s, rng)), "");
}

// ---------------------------------------------------------------------------------------------
// Slice

struct SliceSpecCase {
  std::vector<std::int64_t> starts, ends, axes, steps;
  bool with_axes = false, with_steps = false;
  bool int32 = false;
  bool constant = true;
  std::int64_t opset = 13;
  DType type = DType::F32;
};

OpCase slice_case(const std::vector<std::int64_t>& dims, const SliceSpecCase& s, std::mt19937_64& rng) {
  OpCase c;
  c.op = "Slice";
  c.opset = s.opset;
  c.inputs = {random_tensor(s.type, dims, rng)};
  if (s.opset < 10) {
    c.attributes = {ib::ints_attr("starts", s.starts), ib::ints_attr("ends", s.ends)};
    if (s.with_axes) c.attributes.push_back(ib::ints_attr("axes", s.axes));
    return c;
  }
  auto ints = [&](const std::vector<std::int64_t>& v) { return s.int32 ? i32_tensor(v) : i64_tensor(v); };
  c.inputs.push_back(ints(s.starts));
  c.inputs.push_back(ints(s.ends));
  if (s.with_axes || s.with_steps) c.inputs.push_back(s.with_axes ? ints(s.axes) : Tensor());
  if (s.with_steps) c.inputs.push_back(ints(s.steps));
  c.constant = {false, s.constant, s.constant, s.constant, s.constant};
  return c;
}

TEST(DiffDatamove, SliceRandomShapesAndSteps) {
  CaseTally tally;
  std::mt19937_64 rng(22);
  const DType types[] = {DType::F32, DType::I64, DType::U8, DType::F16, DType::Bool};
  const std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
  const std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
  const std::int64_t steps[] = {1, 1, 1, 2, 3, -1, -2, -3, 7, -7, kI64Max, kI64Min + 1};
  for (int iteration = 0; iteration < 500; ++iteration) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<std::int64_t>(rng() % 7));
    SliceSpecCase s;
    s.type = types[rng() % std::size(types)];
    s.opset = rng() % 8 == 0 ? 9 : 13;
    s.with_axes = rng() % 2 == 0;
    s.with_steps = s.opset >= 10 && rng() % 2 == 0;
    s.int32 = s.opset >= 10 && rng() % 4 == 0;
    s.constant = rng() % 3 != 0;
    std::vector<int> order(static_cast<std::size_t>(rank));
    for (int d = 0; d < rank; ++d) order[static_cast<std::size_t>(d)] = d;
    std::shuffle(order.begin(), order.end(), rng);
    const int k = s.with_axes ? 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(rank)) : 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(rank));
    for (int i = 0; i < k; ++i) {
      const int axis = s.with_axes ? order[static_cast<std::size_t>(i)] : i;
      auto bound = [&]() -> std::int64_t {
        const int pick = static_cast<int>(rng() % 10);
        if (pick == 0 && !s.int32) return rng() % 2 == 0 ? kI64Max : kI64Min;
        if (pick == 1) return rng() % 2 == 0 ? kI32Max : -kI32Max - 1;
        return static_cast<std::int64_t>(rng() % 17) - 8;
      };
      s.starts.push_back(bound());
      s.ends.push_back(bound());
      if (s.with_axes) s.axes.push_back(rng() % 2 == 0 ? axis : axis - rank);
      std::int64_t step = steps[rng() % std::size(steps)];
      if (s.int32 && (step > kI32Max || step < -kI32Max)) step = step > 0 ? 5 : -5;
      s.steps.push_back(step);
    }
    const OpCase c = slice_case(dims, s, rng);
    EXPECT_EQ(compare_everywhere(c, &tally), "") << "iteration " << iteration;
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

TEST(DiffDatamove, SliceLargeAndModelShapes) {
  CaseTally tally;
  std::mt19937_64 rng(23);
  SliceSpecCase merge;  // Swin-T's patch merging: x[:, 0::2, 1::2, :]
  merge.starts = {0, 1};
  merge.ends = {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()};
  merge.with_axes = merge.with_steps = true;
  merge.axes = {1, 2};
  merge.steps = {2, 2};
  EXPECT_EQ(compare_everywhere(slice_case({1, 56, 56, 96}, merge, rng), &tally), "");
  SliceSpecCase split;  // ShuffleNet's channel split: x[:, C/2:]
  split.starts = {58};
  split.ends = {116};
  split.with_axes = true;
  split.axes = {1};
  EXPECT_EQ(compare_everywhere(slice_case({1, 116, 28, 28}, split, rng), &tally), "");
  SliceSpecCase reverse;  // a reversed inner axis of a large tensor, strided copy
  reverse.starts = {-1};
  reverse.ends = {std::numeric_limits<std::int64_t>::min()};
  reverse.with_axes = reverse.with_steps = true;
  reverse.axes = {-1};
  reverse.steps = {-1};
  EXPECT_EQ(compare_everywhere(slice_case({300, 500}, reverse, rng), &tally), "");
  EXPECT_EQ(tally.override_cases, 3u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 3u) << tally.summary();
}

TEST(DiffDatamove, SliceErrors) {
  std::mt19937_64 rng(24);
  SliceSpecCase s;  // step 0
  s.starts = {0};
  s.ends = {2};
  s.with_steps = true;
  s.steps = {0};
  EXPECT_EQ(error_difference(slice_case({4, 4}, s, rng)), "");
  SliceSpecCase twice;  // an axis listed twice
  twice.starts = {0, 0};
  twice.ends = {2, 2};
  twice.with_axes = true;
  twice.axes = {1, -1};
  EXPECT_EQ(error_difference(slice_case({4, 4}, twice, rng)), "");
  SliceSpecCase lengths;  // starts and ends of different lengths
  lengths.starts = {0, 0};
  lengths.ends = {2};
  EXPECT_EQ(error_difference(slice_case({4, 4}, lengths, rng)), "");
  SliceSpecCase axis;  // an axis out of range
  axis.starts = {0};
  axis.ends = {2};
  axis.with_axes = true;
  axis.axes = {2};
  EXPECT_EQ(error_difference(slice_case({4, 4}, axis, rng)), "");
  axis.constant = false;
  EXPECT_EQ(error_difference(slice_case({4, 4}, axis, rng)), "");
}

// ---------------------------------------------------------------------------------------------
// Where and the comparisons

// Values from a small set, so that equal pairs are common: zeros of both signs, 1, 2, -1, a NaN
// with a payload and an infinity for float types.
Tensor narrow_tensor(DType t, const std::vector<std::int64_t>& dims, std::mt19937_64& rng) {
  std::size_t n = 1;
  for (std::int64_t d : dims) n *= static_cast<std::size_t>(d);
  std::vector<std::byte> bytes(n * dtype_size(t));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t pick = rng() % 6;
    const float f32[] = {0.0f, -0.0f, 1.0f, 2.0f, std::numeric_limits<float>::infinity(), -1.0f};
    const std::uint16_t f16[] = {0x0000, 0x8000, 0x3C00, 0x4000, 0x7E01, 0x7C00};
    const std::uint16_t bf16[] = {0x0000, 0x8000, 0x3F80, 0x4000, 0x7FC1, 0x7F80};
    const std::int64_t ints[] = {0, 1, 2, -1, 0, 1};
    switch (t) {
      case DType::F32: {
        float f = f32[pick];
        if (rng() % 7 == 0) {
          const std::uint32_t u = 0xFFA00001u;  // a negative signalling NaN with a payload
          std::memcpy(&f, &u, 4);
        }
        put(bytes, i, f);
        break;
      }
      case DType::F64: put(bytes, i, pick == 4 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(f32[pick])); break;
      case DType::F16: put(bytes, i, f16[pick]); break;
      case DType::BF16: put(bytes, i, bf16[pick]); break;
      case DType::Bool: put(bytes, i, static_cast<std::uint8_t>(pick & 1)); break;
      default: {
        const auto v = static_cast<std::uint64_t>(ints[pick]);
        const std::size_t w = dtype_size(t);
        std::memcpy(bytes.data() + i * w, &v, w);  // little-endian: the low bytes
      }
    }
  }
  return Tensor::from_bytes(t, shape_of(dims), bytes);
}

// Three shapes that broadcast together: an output shape of rank 0-5 and, per input, each axis kept,
// made 1, or (leading axes) dropped.
std::vector<std::vector<std::int64_t>> broadcast_shapes(std::size_t inputs, std::mt19937_64& rng, std::int64_t max_extent) {
  const int rank = static_cast<int>(rng() % 6);
  std::vector<std::int64_t> out;
  for (int d = 0; d < rank; ++d) out.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_extent + 1)));
  std::vector<std::vector<std::int64_t>> shapes;
  for (std::size_t k = 0; k < inputs; ++k) {
    const int drop = rank == 0 ? 0 : static_cast<int>(rng() % static_cast<std::uint64_t>(rank + 1)) * static_cast<int>(rng() % 2);
    std::vector<std::int64_t> s;
    for (int d = drop; d < rank; ++d) s.push_back(rng() % 3 == 0 ? 1 : out[static_cast<std::size_t>(d)]);
    shapes.push_back(s);
  }
  return shapes;
}

TEST(DiffDatamove, WhereBroadcastsEveryType) {
  CaseTally tally;
  std::mt19937_64 rng(25);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const DType t = kStored[rng() % std::size(kStored)];
    const auto shapes = broadcast_shapes(3, rng, 6);
    OpCase c;
    c.op = "Where";
    c.opset = 16;
    c.inputs = {narrow_tensor(DType::Bool, shapes[0], rng), random_tensor(t, shapes[1], rng), random_tensor(t, shapes[2], rng)};
    c.constant = {false, rng() % 2 == 0, rng() % 2 == 0};
    EXPECT_EQ(compare_everywhere(c, &tally), "") << dtype_name(t) << " iteration " << iteration;
  }
  // Large: same shapes, a scalar branch (Swin's attention mask: Where(mask, -100, 0)), a row.
  const std::vector<std::vector<std::vector<std::int64_t>>> large = {
      {{64, 49, 49}, {64, 49, 49}, {64, 49, 49}}, {{64, 49, 49}, {}, {}}, {{4, 120, 100}, {100}, {4, 1, 100}}};
  for (const auto& shapes : large) {
    OpCase c;
    c.op = "Where";
    c.opset = 16;
    c.inputs = {narrow_tensor(DType::Bool, shapes[0], rng), random_tensor(DType::F32, shapes[1], rng),
                random_tensor(DType::F32, shapes[2], rng)};
    EXPECT_EQ(compare_everywhere(c, &tally), "");
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GE(tally.shared_cases, 3u) << tally.summary();
}

TEST(DiffDatamove, ComparisonsBroadcastTheirTypes) {
  CaseTally tally;
  std::mt19937_64 rng(26);
  const std::vector<DType> numeric = {DType::F32, DType::F64, DType::F16, DType::I8,  DType::I16, DType::I32,
                                      DType::I64, DType::U8,  DType::U16, DType::U32, DType::U64};
  std::vector<DType> with_bool = numeric;
  with_bool.push_back(DType::Bool);
  const std::vector<std::pair<std::string, std::vector<DType>>> ops = {
      {"Equal", with_bool},        {"Less", numeric}, {"Greater", numeric},         {"LessOrEqual", numeric},
      {"GreaterOrEqual", numeric}, {"And", {DType::Bool}}, {"Or", {DType::Bool}}, {"Xor", {DType::Bool}}};
  for (const auto& [op, types] : ops) {
    for (int iteration = 0; iteration < 40; ++iteration) {
      const DType t = types[rng() % types.size()];
      const auto shapes = broadcast_shapes(2, rng, 5);
      OpCase c;
      c.op = op;
      c.opset = 16;
      c.inputs = {narrow_tensor(t, shapes[0], rng), narrow_tensor(t, shapes[1], rng)};
      EXPECT_EQ(compare_everywhere(c, &tally), "") << op << " " << dtype_name(t) << " iteration " << iteration;
    }
    OpCase big;  // two threads
    big.op = op;
    big.opset = 16;
    const DType t = types[0];
    big.inputs = {narrow_tensor(t, {64, 49, 49}, rng), narrow_tensor(t, {1, 49, 1}, rng)};
    EXPECT_EQ(compare_everywhere(big, &tally), "") << op;
  }
  for (const std::vector<std::int64_t>& dims : std::vector<std::vector<std::int64_t>>{{}, {0}, {7, 3}, {64, 49, 49}}) {
    OpCase c;
    c.op = "Not";
    c.opset = 13;
    c.inputs = {narrow_tensor(DType::Bool, dims, rng)};
    EXPECT_EQ(compare_everywhere(c, &tally), "");
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GE(tally.shared_cases, ops.size()) << tally.summary();
}

TEST(DiffDatamove, ComparisonErrors) {
  std::mt19937_64 rng(27);
  OpCase mixed;  // operands of two types
  mixed.op = "Equal";
  mixed.opset = 13;
  mixed.inputs = {narrow_tensor(DType::F32, {3}, rng), narrow_tensor(DType::I64, {3}, rng)};
  EXPECT_EQ(error_difference(mixed), "");
  OpCase shapes;  // shapes that do not broadcast
  shapes.op = "Less";
  shapes.opset = 13;
  shapes.inputs = {narrow_tensor(DType::F32, {3, 2}, rng), narrow_tensor(DType::F32, {3}, rng)};
  EXPECT_EQ(error_difference(shapes), "");
  OpCase boolean;  // Less on Bool
  boolean.op = "Less";
  boolean.opset = 13;
  boolean.inputs = {narrow_tensor(DType::Bool, {3}, rng), narrow_tensor(DType::Bool, {3}, rng)};
  EXPECT_EQ(error_difference(boolean), "");
  OpCase where;  // a float condition
  where.op = "Where";
  where.opset = 16;
  where.inputs = {narrow_tensor(DType::F32, {3}, rng), narrow_tensor(DType::F32, {3}, rng), narrow_tensor(DType::F32, {3}, rng)};
  EXPECT_EQ(error_difference(where), "");
}

// ---------------------------------------------------------------------------------------------
// Gather

OpCase gather_case(DType t, const std::vector<std::int64_t>& dims, std::int64_t axis,
                   const std::vector<std::int64_t>& index_dims, const std::vector<std::int64_t>& index_values,
                   bool int32, std::mt19937_64& rng) {
  OpCase c;
  c.op = "Gather";
  c.opset = 13;
  c.attributes = {ib::int_attr("axis", axis)};
  Tensor idx = int32 ? i32_tensor(index_values) : i64_tensor(index_values);
  idx = idx.reshape(std::span<const std::int64_t>(index_dims));
  c.inputs = {random_tensor(t, dims, rng), idx};
  c.constant = {false, rng() % 2 == 0};
  return c;
}

TEST(DiffDatamove, GatherAxesIndicesAndTypes) {
  CaseTally tally;
  std::mt19937_64 rng(28);
  const DType types[] = {DType::F32, DType::I64, DType::U8, DType::F16, DType::F64, DType::Bool, DType::I32};
  for (int iteration = 0; iteration < 300; ++iteration) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<std::int64_t>(rng() % 6));
    const int axis = static_cast<int>(rng() % static_cast<std::uint64_t>(rank));
    const std::int64_t n = dims[static_cast<std::size_t>(axis)];
    const int index_rank = static_cast<int>(rng() % 3);
    std::vector<std::int64_t> index_dims;
    std::size_t count = 1;
    for (int d = 0; d < index_rank; ++d) {
      index_dims.push_back(n == 0 ? 0 : static_cast<std::int64_t>(rng() % 4));
      count *= static_cast<std::size_t>(index_dims.back());
    }
    if (n == 0 && index_rank == 0) dims[static_cast<std::size_t>(axis)] = 1;  // a scalar index needs an element
    const std::int64_t m = dims[static_cast<std::size_t>(axis)];
    std::vector<std::int64_t> values;
    for (std::size_t j = 0; j < count; ++j) values.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * m)) - m);
    const OpCase c = gather_case(types[rng() % std::size(types)], dims, rng() % 2 == 0 ? axis : axis - rank, index_dims,
                                 values, rng() % 2 == 0, rng);
    EXPECT_EQ(compare_everywhere(c, &tally), "") << "iteration " << iteration;
  }
  // Large: T5's embedding rows (axis 0), a relative-position table on the last axis, two threads.
  std::vector<std::int64_t> ids;
  for (int j = 0; j < 128; ++j) ids.push_back(static_cast<std::int64_t>(rng() % 3000) - 1000);
  EXPECT_EQ(compare_everywhere(gather_case(DType::F32, {3000, 512}, 0, {1, 128}, ids, false, rng), &tally), "");
  std::vector<std::int64_t> buckets;
  for (int j = 0; j < 128 * 128; ++j) buckets.push_back(static_cast<std::int64_t>(rng() % 32));
  EXPECT_EQ(compare_everywhere(gather_case(DType::F32, {32, 8}, 0, {128, 128}, buckets, false, rng), &tally), "");
  std::vector<std::int64_t> columns;
  for (int j = 0; j < 300; ++j) columns.push_back(static_cast<std::int64_t>(rng() % 100) - 50);
  EXPECT_EQ(compare_everywhere(gather_case(DType::I64, {400, 50}, -1, {300}, columns, true, rng), &tally), "");
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GE(tally.shared_cases, 3u) << tally.summary();
}

TEST(DiffDatamove, GatherBadIndicesAreTheReferenceError) {
  std::mt19937_64 rng(29);
  for (std::int64_t bad : {std::int64_t{4}, std::int64_t{-5}, std::int64_t{1000}, std::numeric_limits<std::int64_t>::min()}) {
    for (bool int32 : {false, true}) {
      const std::int64_t v = int32 && bad == std::numeric_limits<std::int64_t>::min() ? -2147483647 - 1 : bad;
      OpCase c = gather_case(DType::F32, {4, 3}, 0, {3}, {0, v, 1}, int32, rng);
      c.constant = {false, false};  // known only at run time: the check is run()'s
      EXPECT_EQ(error_difference(c), "") << bad;
      c = gather_case(DType::F32, {3, 4}, 1, {2}, {-1, v}, int32, rng);
      EXPECT_EQ(error_difference(c), "") << bad;
    }
  }
  OpCase axis = gather_case(DType::F32, {4, 3}, 2, {1}, {0}, false, rng);  // axis out of range
  EXPECT_EQ(error_difference(axis), "");
  OpCase floats = gather_case(DType::F32, {4, 3}, 0, {1}, {0}, false, rng);  // float indices
  floats.inputs[1] = random_tensor(DType::F32, {1}, rng);
  EXPECT_EQ(error_difference(floats), "");
}

}  // namespace
}  // namespace onemodel::diff
