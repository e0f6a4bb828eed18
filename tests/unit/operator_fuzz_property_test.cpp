// The operator fuzzer's rapidcheck twin (issue 10): for every row of the operator table, one-node
// models built by the fuzzer's own builder (diff/op_fuzz_case.hpp) from rapidcheck-generated
// bytes, checked by the fuzzer's oracle (diff/op_fuzz_check.hpp: both engines, both modes, 1, 2
// and 4 threads, every kernel path; typed errors or outputs; exact bits equal everywhere). A few
// cases per row keep it under a minute under ASan. The second test replays the committed seeds
// and regression inputs of fuzz/corpus/operators/.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/graph/op_kernel.hpp"
#include "core/tensor/test_byte_limit.hpp"
#include "diff/op_fuzz_case.hpp"
#include "diff/op_fuzz_check.hpp"
#include "diff/op_harness.hpp"

namespace onemodel::diff {
namespace {

// Rows the optimized engine overrides run different code in the two engines: more cases there.
constexpr int kCasesPerRow = 3;
constexpr int kCasesPerOverriddenRow = 8;

// ONEMODEL_OPFUZZ_PROPERTY_SCALE=K multiplies both counts, for sweeps run by hand (CI keeps the
// defaults). Session 16's landing failed on a finding (an int8 Dropout with a fed training_mode)
// that 3 cases per row meet in about one run of twenty; scale 34 found it within 70 cases of the
// row under each of two seeds.
int case_scale() {
  const char* text = std::getenv("ONEMODEL_OPFUZZ_PROPERTY_SCALE");
  if (text == nullptr) return 1;
  const int scale = std::atoi(text);
  return scale >= 1 && scale <= 1000 ? scale : 1;
}

// As in fuzz/operators_fuzz.cpp: legal but huge outputs take the size-limit refusal path.
class OperatorFuzzProperty : public ::testing::Test {
 protected:
  void SetUp() override { onemodel::testing::set_buffer_byte_limit(std::int64_t{16} << 20); }
  void TearDown() override { onemodel::testing::set_buffer_byte_limit(0); }
};

TEST_F(OperatorFuzzProperty, EveryRowOfTheTable) {
  const std::size_t rows = all_ops().size();
  std::size_t rows_run = 0;  // rows where at least one case produced outputs in some mode
  for (std::size_t row = 0; row < rows; ++row) {
    bool ran = false;
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    const OpDef& def = all_ops()[row];
    const bool overridden = has_override(def.op_type, def.min_opset) || has_override(def.op_type, def.max_opset);
    params.maxSuccess = (overridden ? kCasesPerOverriddenRow : kCasesPerRow) * case_scale();
    params.seed += row;
    rc::detail::TestMetadata metadata;
    metadata.id = std::string(all_ops()[row].op_type) + " row " + std::to_string(row);
    metadata.description = metadata.id;
    const auto result = rc::detail::checkTestable(
        [row, &ran] {
          const auto length = *rc::gen::inRange<std::size_t>(0, 1500);
          const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(length, rc::gen::arbitrary<std::uint8_t>());
          ByteSource source(bytes.data(), bytes.size());
          const OpFuzzCase c = build_op_case(source, row);
          OpFuzzStats stats;
          const std::string finding = check_op_case(c, &stats);
          RC_ASSERT(finding == std::string());
          ran = ran || stats.exact_ran || stats.fast_ran;
        },
        metadata, params);
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    EXPECT_TRUE(result.template is<rc::detail::SuccessResult>()) << metadata.id << ": " << message.str();
    if (ran) ++rows_run;
  }
  std::printf("%zu of %zu rows produced outputs in some case\n", rows_run, rows);
  // Refusals are allowed, but a builder whose every case is refused tests nothing.
  EXPECT_GE(rows_run * 2, rows) << rows_run << " of " << rows << " rows produced outputs";
}

TEST_F(OperatorFuzzProperty, CommittedSeedsReplay) {
  const std::filesystem::path dir = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "fuzz/corpus/operators";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ByteSource source(bytes.data(), bytes.size());
    const OpFuzzCase c = build_op_case(source);
    EXPECT_EQ(check_op_case(c), "") << entry.path().filename();
    ++files;
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace onemodel::diff
