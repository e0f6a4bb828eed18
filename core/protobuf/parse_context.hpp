// State shared by everything that reads one protobuf input: the whole input (so byte fields can
// be zero-copy views into it and offsets are from its start), the input's name, the field path
// and the nesting depth (spec/onnx-import.md sections 1 and 7).
#pragma once

#include <cstdint>
#include <string>

#include "core/protobuf/field_path.hpp"
#include "onemodel/bytes.hpp"
#include "onemodel/error.hpp"

namespace onemodel::pb {

class ParseContext {
 public:
  ParseContext(ByteView input, std::string input_name, const char* root_message, int max_nesting)
      : input_(std::move(input)), input_name_(std::move(input_name)), path_(root_message),
        max_nesting_(max_nesting) {}

  const ByteView& input() const noexcept { return input_; }
  const std::string& input_name() const noexcept { return input_name_; }
  FieldPath& path() noexcept { return path_; }

  // spec/onnx-import.md section 7: kind, input name, byte offset, field path.
  [[noreturn]] void fail(ModelErrorKind kind, const std::string& message, std::uint64_t offset) const;
  [[noreturn]] void fail_without_offset(ModelErrorKind kind, const std::string& message) const;

  // spec/onnx-import.md section 1: each nested message is one level; beyond max_nesting the
  // input is refused. `offset` is where the nested message starts.
  void enter_message(std::uint64_t offset);
  void leave_message() noexcept { --depth_; }

 private:
  ByteView input_;
  std::string input_name_;
  FieldPath path_;
  int max_nesting_;
  int depth_ = 0;
};

// Adds one segment to the field path for the lifetime of the object.
class PathScope {
 public:
  PathScope(ParseContext& ctx, const char* name, std::int64_t index = -1) : ctx_(ctx) {
    ctx_.path().push(name, index);
  }
  ~PathScope() { ctx_.path().pop(); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  ParseContext& ctx_;
};

}  // namespace onemodel::pb
