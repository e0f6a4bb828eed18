// A sorted index of a fixed list of names: find() in O(log n), allocation-free, so that checking a
// run's names costs O(k log n) rather than O(k n) (issue 11, defect 5: with 10^5 graph outputs a
// linear search per name made the first run take 54 s). Built once, when the session is made.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onemodel {

class NameIndex {
 public:
  NameIndex() = default;
  explicit NameIndex(const std::vector<std::string>& names) {
    sorted_.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) sorted_.emplace_back(names[i], i);
    // Equal names keep their list order, so find() answers the first, as a linear search would.
    std::sort(sorted_.begin(), sorted_.end());
  }

  // The position of the first `name` in the list the index was built from, or -1.
  std::ptrdiff_t find(std::string_view name) const noexcept {
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), name,
                                     [](const std::pair<std::string, std::size_t>& entry, std::string_view key) {
                                       return std::string_view(entry.first) < key;
                                     });
    if (it == sorted_.end() || it->first != name) return -1;
    return static_cast<std::ptrdiff_t>(it->second);
  }

  std::size_t size() const noexcept { return sorted_.size(); }

 private:
  std::vector<std::pair<std::string, std::size_t>> sorted_;
};

}  // namespace onemodel
