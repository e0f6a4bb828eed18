// The kernel registry's shared rules (DESIGN.md rule 6; docs/design.md, "Kernel registry"). Each
// kernel family lists its variants once, best first and the scalar one last, as a constexpr table
// of a family struct with at least `name` (the grammar of docs/design.md) and `isa` (the path it
// needs), and optionally `feature`, a further CPU check (AVX512-VNNI, the Arm dot product).
// Run-time dispatch, the kernel tests (tests/kernels/variant_paths.hpp) and bench_kernels all read
// that one list, so a variant is dispatched, tested and timed by being listed.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "optimized/frame/isa.hpp"

namespace onemodel::opt {

// Isa::Avx512 + 1: one choice per path.
inline constexpr std::size_t kIsaCount = 6;

// Whether this CPU runs `variant`: its path is available and its further feature (if any) present.
template <class Variant>
bool variant_runs_here(const Variant& variant) noexcept {
  if constexpr (requires { variant.feature; }) {
    if (variant.feature != nullptr && !variant.feature()) return false;
  }
  return isa_available(variant.isa);
}

// Whether `variant` may serve the path `path` (the session's, capped by ONEMODEL_ISA, or the one a
// test forces): it runs here and it is that path or of a lower level (isa.hpp: a family without
// 512-bit code runs its AVX2 variant on the AVX-512 path). The 128-bit paths of the three
// platforms share a level but never serve each other.
template <class Variant>
bool variant_allowed(const Variant& variant, Isa path) noexcept {
  return (variant.isa == path || isa_level(variant.isa) < isa_level(path)) && variant_runs_here(variant);
}

// The position of the first variant of `list` allowed on `path`; the last one (scalar, which every
// list ends with) when none is.
template <class Variant>
std::size_t first_allowed(std::span<const Variant> list, Isa path) noexcept {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (variant_allowed(list[i], path)) return i;
  }
  return list.size() - 1;
}

// The dispatch of one family: the choice of first_allowed for each path, made once (the CPU and
// the list do not change while the process runs), so a kernel call costs one table load.
template <class Variant>
class VariantChoice {
 public:
  explicit VariantChoice(std::span<const Variant> list) noexcept {
    for (std::size_t i = 0; i < kIsaCount; ++i) chosen_[i] = &list[first_allowed(list, static_cast<Isa>(i))];
  }
  const Variant& operator[](Isa path) const noexcept {
    const auto index = static_cast<std::size_t>(path);
    return *chosen_[index < kIsaCount ? index : 0];
  }

 private:
  std::array<const Variant*, kIsaCount> chosen_{};
};

}  // namespace onemodel::opt
