// The golden node set (spec-source golden-hashes.md, "Method", the `--cases` paragraph): every ONNX
// backend node case run once in exact mode and hashed, one line per case, so that another
// implementation can compare itself with this one case by case.
//
// A case's hash is one SHA-256 over its outputs: for every data set (test_data_set_0, 1, ... in
// numeric order) and every graph output in the model's order, the element type code, the rank and
// each extent as little-endian int64, then the elements row-major (tensor_hash.hpp). The inputs
// are the case's own input_N.pb files, matched to the model's inputs as the conformance runner
// does (spec/conformance.md section 2). The expected output files are not read: the line records
// what this library computes, right or wrong, not whether it matches ONNX.
//
// A case that cannot run in exact mode prints not_exact_marker() instead, whatever the reason
// (an operator without an exact kernel, an operator or element type the library lacks, a value
// kind sessions do not take, any other error), so "could not run" is compared across platforms
// like any other result. The reason is kept for the tool's summary, not in the line.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "onemodel/session.hpp"

namespace onemodel::golden {

// Why a case produced the marker instead of a hash (for the summary only).
enum class NodeCaseOutcome { Hashed, NotExact, UnsupportedOperator, UnsupportedType, Error };

struct NodeCaseResult {
  std::string line;     // "case/<name> <sha256>" or "case/<name> <marker>"
  NodeCaseOutcome outcome = NodeCaseOutcome::Error;
  std::string reason;   // empty when hashed
  std::string kernel_path;  // Session::kernel_path(), empty when no session was made
};

// The case folders (those holding model.onnx) directly under `dir`, sorted by name. Throws
// std::runtime_error when `dir` is not a readable directory or holds no case.
std::vector<std::filesystem::path> node_case_folders(const std::filesystem::path& dir);

// Runs one case with `options` (mode forced to exact). Never throws for anything the case holds.
NodeCaseResult run_node_case(const std::filesystem::path& folder, SessionOptions options);

// "hashed", "not-exact", "unsupported-op", "unsupported-type", "error".
const char* outcome_name(NodeCaseOutcome outcome) noexcept;

}  // namespace onemodel::golden
