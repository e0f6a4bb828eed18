// A GoogleTest fixture owning a fresh folder for one test's conformance case (model.onnx and its
// test_data_set_* files): made empty before the test, removed after it. Shared by the
// conformance runner's tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace onemodel::testing {

class CaseFolderTest : public ::testing::Test {
 protected:
  // The folder is <temp>/<prefix><test name>.
  explicit CaseFolderTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `bytes` to `relative` inside the folder, making its parent folders.
  void write(const std::filesystem::path& relative, const std::string& bytes) {
    std::filesystem::create_directories((dir_ / relative).parent_path());
    std::ofstream(dir_ / relative, std::ios::binary) << bytes;
  }

  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace onemodel::testing
