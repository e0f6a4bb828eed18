// The session fuzzer's committed seeds (fuzz/corpus/session/, tools/fuzz/make_session_seeds.py):
// the hostile models of issue 11, each of which crashed, hung or misled the library before its
// fix. Replayed here through the fuzzer's own case builder and oracle, so every one of them is a
// unit test in the g++ Checked build as well (the fuzzer itself is clang-only): a crash or a
// sanitizer report fails the program, an oracle finding fails the test.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/tensor/test_byte_limit.hpp"
#include "diff/op_fuzz_check.hpp"
#include "diff/session_fuzz_case.hpp"

namespace onemodel::diff {
namespace {

TEST(SessionFuzzSeeds, CommittedSeedsReplay) {
  // The fuzzer's size bound (fuzz/session_fuzz.cpp), so a seed takes the same path as there.
  testing::set_buffer_byte_limit(std::int64_t{16} << 20);
  const std::filesystem::path dir = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "fuzz/corpus/session";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int files = 0, built = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const OpFuzzCase c = build_session_case(bytes);
    EXPECT_EQ(check_op_case(c), "") << entry.path().filename();
    ++files;
    if (c.model_error.empty()) ++built;
  }
  testing::set_buffer_byte_limit(0);
  EXPECT_GE(files, 8);
  // Some seeds are refused by the reader once fixed (an initializer named ""), but most must run.
  EXPECT_GE(built * 2, files) << built << " of " << files << " seeds were read and given inputs";
}

// The fuzzers give each input a time budget (fuzz/fuzz_support.hpp kCaseBudget): a case whose runs
// pass it is set aside unjudged instead of being carried past libFuzzer's hang timeout. A zero
// budget stops the first run before its first node; without a budget the same case is judged.
TEST(SessionFuzzSeeds, ACaseOverItsBudgetIsSetAsideUnjudged) {
  testing::set_buffer_byte_limit(std::int64_t{16} << 20);
  const std::filesystem::path seed =
      std::filesystem::path(ONEMODEL_SOURCE_DIR) / "fuzz/corpus/session/control-flow-scan-rnn.onnx";
  std::ifstream in(seed, std::ios::binary);
  ASSERT_TRUE(in) << seed;
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const OpFuzzCase c = build_session_case(bytes);
  ASSERT_EQ(c.model_error, "");
  ASSERT_FALSE(c.model.graph.nodes.empty());

  OpFuzzStats judged;
  EXPECT_EQ(check_op_case(c, &judged), "");
  EXPECT_FALSE(judged.over_budget);
  EXPECT_TRUE(judged.exact_ran);
  EXPECT_TRUE(judged.fast_ran);

  OpFuzzStats aside;
  EXPECT_EQ(check_op_case(c, &aside, std::chrono::steady_clock::duration::zero()), "");
  EXPECT_TRUE(aside.over_budget);
  EXPECT_FALSE(aside.exact_ran);  // set aside before its first run was recorded
  testing::set_buffer_byte_limit(0);
}

}  // namespace
}  // namespace onemodel::diff
