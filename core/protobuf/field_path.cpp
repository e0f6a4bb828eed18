#include "core/protobuf/field_path.hpp"

namespace onemodel::pb {

std::string FieldPath::str() const {
  std::string out = root_;
  for (const Segment& s : segments_) {
    out += '.';
    out += s.name;
    if (s.index >= 0) out += '[' + std::to_string(s.index) + ']';
  }
  return out;
}

}  // namespace onemodel::pb
