// The plan's slab allocator (optimized/runtime/slab_allocator.hpp, graph-runtime.md section 5):
// whatever the order of allocations and releases, live blocks are 64-byte aligned and never
// overlap each other or a free block, free blocks are coalesced, and live plus free blocks tile
// the slab exactly. Two values sharing bytes would corrupt each other only in graphs whose
// lifetimes happen to collide, so this is checked on the allocator itself (mutants rt-02 and rt-04,
// a misplaced remainder and a coalescing of blocks that do not touch, survived the session tests).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "optimized/runtime/slab_allocator.hpp"

namespace onemodel::opt {
namespace {

struct Block {
  std::int64_t offset;
  std::int64_t bytes;  // as requested; the allocator rounds it
};

// Empty when the invariants hold.
std::string broken(const SlabAllocator& slab, const std::vector<Block>& live) {
  std::map<std::int64_t, std::int64_t> taken;  // offset -> rounded length, live and free together
  std::int64_t total = 0;
  for (const Block& b : live) {
    if (b.offset % SlabAllocator::kAlignment != 0) return "a live block at " + std::to_string(b.offset) + " is not aligned";
    const std::int64_t length = SlabAllocator::rounded(b.bytes);
    if (!taken.emplace(b.offset, length).second) return "two blocks at " + std::to_string(b.offset);
    total += length;
  }
  const auto& free = slab.free_blocks();
  for (auto it = free.begin(); it != free.end(); ++it) {
    if (it->second <= 0) return "an empty free block";
    auto next = std::next(it);
    if (next != free.end() && it->first + it->second >= next->first) {
      return "free blocks at " + std::to_string(it->first) + " and " + std::to_string(next->first) +
             " touch or overlap (not coalesced)";
    }
    if (!taken.emplace(it->first, it->second).second) return "a free block starts at a live block's offset";
    total += it->second;
  }
  std::int64_t end = 0;
  for (const auto& [offset, length] : taken) {
    if (offset < end) return "blocks overlap at " + std::to_string(offset);
    end = offset + length;
  }
  if (end > slab.size()) return "a block ends past the slab";
  if (total != slab.size()) {
    return "live and free blocks cover " + std::to_string(total) + " bytes of a " + std::to_string(slab.size()) + "-byte slab";
  }
  return {};
}

TEST(SlabAllocator, RandomAllocationsAndReleasesKeepTheInvariants) {
  const bool ok = rc::check("slab invariants", [] {
    SlabAllocator slab;
    std::vector<Block> live;
    const int steps = *rc::gen::inRange(1, 200);
    for (int step = 0; step < steps; ++step) {
      if (!live.empty() && *rc::gen::inRange(0, 5) < 2) {
        const std::size_t i = static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, live.size()));
        slab.release(live[i].offset, live[i].bytes);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const std::int64_t bytes = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 130), rc::gen::inRange<std::int64_t>(0, 5000));
        live.push_back({slab.allocate(bytes), bytes});
      }
      const std::string why = broken(slab, live);
      RC_ASSERT(why == "");
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SlabAllocator, ReleasedNeighboursMergeAndAreReused) {
  // Three 64-byte blocks; releasing the outer two and then the middle one leaves one free block
  // of 192 bytes, which a 192-byte request takes whole at offset 0.
  SlabAllocator slab;
  const std::int64_t a = slab.allocate(64), b = slab.allocate(64), c = slab.allocate(64);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 64);
  EXPECT_EQ(c, 128);
  slab.release(a, 64);
  slab.release(c, 64);
  EXPECT_EQ(slab.free_blocks().size(), 2u);
  slab.release(b, 64);
  ASSERT_EQ(slab.free_blocks().size(), 1u);
  EXPECT_EQ(slab.free_blocks().begin()->first, 0);
  EXPECT_EQ(slab.free_blocks().begin()->second, 192);
  EXPECT_EQ(slab.allocate(192), 0);
  EXPECT_EQ(slab.size(), 192);
}

}  // namespace
}  // namespace onemodel::opt
