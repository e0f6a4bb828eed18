// The paths a kernel test runs a family on, read from the family's registry list
// (kernel_registry.hpp; DESIGN.md rules 6 and 7): one per listed variant this machine runs, so a
// variant is tested by being listed. A listed variant the CPU lacks is reported as skipped; one
// that its own path does not choose (an earlier variant of the same level shadows it) fails the
// test, since dispatch would never run it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt::kernel_tests {

// Whether this machine runs the path (kernels chosen by shape on one path, such as the AVX-512
// stem and channel-blocked depthwise kernels, test only where it exists).
inline bool machine_runs(Isa isa) {
  for (Isa available : available_isas()) {
    if (available == isa) return true;
  }
  return false;
}

template <class Variant>
std::vector<Isa> variant_paths(std::span<const Variant> list) {
  std::vector<Isa> paths;
  for (const Variant& variant : list) {
    if (!variant_runs_here(variant)) {
      std::printf("[ SKIPPED  ] variant %s: this CPU lacks %s\n", std::string(variant.name).c_str(),
                  std::string(isa_name(variant.isa)).c_str());
      continue;
    }
    const Variant& chosen = list[first_allowed(list, variant.isa)];
    if (&chosen != &variant) {
      ADD_FAILURE() << "variant " << variant.name << " is listed but never dispatched: " << chosen.name
                    << " comes first on path " << isa_name(variant.isa);
      continue;
    }
    paths.push_back(variant.isa);
  }
  return paths;
}

// The ISA part of a variant's name (docs/design.md, "Kernel registry").
inline std::string_view isa_token(Isa isa) {
  switch (isa) {
    case Isa::Scalar: return "scalar";
    case Isa::Sse: return "sse41";
    case Isa::Neon: return "neon";
    case Isa::Wasm: return "wasm_simd128";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "?";
}

// The list's form (docs/design.md, "Kernel registry"): not empty, the scalar variant last, names
// unique and of the grammar <prefix>[_<tile>]__<isa>[_<feature>] with <isa> the variant's path.
template <class Variant>
void expect_registry_form(std::span<const Variant> list, std::string_view prefix) {
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list.back().isa, Isa::Scalar) << "the last variant of " << prefix << " must be the scalar one";
  std::set<std::string_view> names;
  for (const Variant& variant : list) {
    const std::string_view name = variant.name;
    EXPECT_TRUE(names.insert(name).second) << "listed twice: " << name;
    const std::size_t split = name.find("__");
    ASSERT_NE(split, std::string_view::npos) << name << ": no __ before the ISA";
    const std::string_view head = name.substr(0, split);
    EXPECT_TRUE(head == prefix || (head.substr(0, prefix.size()) == prefix && head.size() > prefix.size() &&
                                   head[prefix.size()] == '_'))
        << name << " does not start with " << prefix;
    const std::string_view tail = name.substr(split + 2);
    const std::string_view token = isa_token(variant.isa);
    EXPECT_TRUE(tail == token || (tail.substr(0, token.size()) == token && tail.size() > token.size() &&
                                  tail[token.size()] == '_'))
        << name << " does not name its path " << token;
  }
}

}  // namespace onemodel::opt::kernel_tests
