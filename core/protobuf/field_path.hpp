// The field path of the message being read, for error reports
// (spec/onnx-import.md section 7: `ModelProto.graph.node[3].attribute[1].t`). Segments are
// static names plus an optional index, so tracking the path allocates nothing until an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onemodel::pb {

class FieldPath {
 public:
  explicit FieldPath(const char* root) : root_(root) {}

  void push(const char* name, std::int64_t index = -1) { segments_.push_back({name, index}); }
  void pop() { segments_.pop_back(); }
  std::string str() const;

 private:
  struct Segment {
    const char* name;
    std::int64_t index;  // -1: not a repeated element
  };
  const char* root_;
  std::vector<Segment> segments_;
};

}  // namespace onemodel::pb
