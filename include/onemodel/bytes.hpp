// A read-only byte range kept alive by a shared owner: a memory-mapped file, a copy of the
// caller's bytes, or a small vector of converted values. Views of one file share its owner,
// so a tensor of a model stays readable as long as anything refers to it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

struct ByteView {
  const std::byte* data = nullptr;
  std::size_t size = 0;
  std::shared_ptr<const void> owner;  // keeps `data` alive; may be null for size 0

  std::span<const std::byte> span() const noexcept { return {data, size}; }
  bool empty() const noexcept { return size == 0; }

  // A sub-range sharing the same owner. The caller has checked offset + length <= size.
  ByteView slice(std::size_t offset, std::size_t length) const noexcept {
    return ByteView{data + offset, length, owner};
  }
};

}  // namespace onemodel

#pragma GCC visibility pop
