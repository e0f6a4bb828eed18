// A copy of some bytes in storage the ByteView owns: the readers may keep views into the bytes
// they read, so a caller's short-lived buffer (a fuzzer's input) is copied first. Used by the
// session fuzz case builder here and by every fuzz target (fuzz/fuzz_support.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "onemodel/bytes.hpp"

namespace onemodel::diff {

inline ByteView owned_bytes(const std::uint8_t* data, std::size_t size) {
  auto owner = std::make_shared<std::vector<std::byte>>(size);
  if (size != 0) std::memcpy(owner->data(), data, size);
  return ByteView{owner->data(), owner->size(), owner};
}

}  // namespace onemodel::diff
