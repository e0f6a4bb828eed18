// spec/tensors.md section 6, Arena: 64-byte aligned bump allocation from pool chunks, reset makes
// earlier tensors stale, a replayed run allocates nothing, Checked-build canaries.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "onemodel/arena.hpp"

// Counts plain operator new calls so the replay test can show that a warmed-up arena allocates
// nothing (spec/tensors.md section 6).
namespace {
std::atomic<std::uint64_t> g_news{0};
}

// free() of memory from the replaced operator new is correct here: that operator new is malloc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace onemodel {
namespace {

std::uintptr_t address(const Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.buffer()->data() + t.byte_offset());
}

TEST(Arena, AllocationsAreAlignedAndDisjoint) {
  BufferPool pool;
  Arena arena(pool);
  Tensor a = arena.allocate(DType::F32, Shape{3});   // 12 bytes
  Tensor b = arena.allocate(DType::U8, Shape{100});  // 100 bytes
  Tensor c = arena.allocate(DType::I64, Shape{2, 2});
  for (const Tensor* t : {&a, &b, &c}) {
    EXPECT_EQ(address(*t) % 64, 0u);
    EXPECT_FALSE(t->owns_buffer());
    t->validate();
  }
  EXPECT_GE(address(b), address(a) + 12);
  EXPECT_GE(address(c), address(b) + 100);
  EXPECT_EQ(arena.chunk_count(), 1u);
  EXPECT_EQ(a.buffer()->length(), Arena::kDefaultChunkBytes);
  a.set<float>({2}, 1.5f);
  b.set<std::uint8_t>({99}, 7);
  EXPECT_EQ(a.at<float>({2}), 1.5f);
  EXPECT_EQ(b.at<std::uint8_t>({99}), 7);
  // A view cannot reach past its allocation even though the chunk is larger.
  EXPECT_EQ(a.capacity_elements(), 3);
}

TEST(Arena, ResetMakesEarlierTensorsStale) {
  BufferPool pool;
  Arena arena(pool);
  Tensor a = arena.allocate(DType::F32, Shape{4});
  Tensor view = a.flip(0);
  a.set<float>({0}, 1.0f);
  arena.reset();
  EXPECT_TRUE(a.is_stale());
  try {
    (void)view.at<float>({0});
    ADD_FAILURE() << "stale read accepted";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Stale);
  }
  Tensor b = arena.allocate(DType::F32, Shape{4});
  EXPECT_EQ(address(b), address(a));  // the memory is reused...
  EXPECT_FALSE(b.is_stale());         // ...by a tensor of the new generation
  EXPECT_THROW((void)a.at<float>({0}), TensorError);
}

TEST(Arena, LargeRequestGetsItsOwnChunk) {
  BufferPool pool;
  Arena arena(pool, 4096);
  Tensor small = arena.allocate(DType::U8, Shape{1000});
  Tensor big = arena.allocate(DType::U8, Shape{10000});
  EXPECT_GE(big.buffer()->length(), 10000u);
  EXPECT_NE(big.buffer(), small.buffer());
  EXPECT_EQ(small.buffer()->length(), 4096u);
  EXPECT_EQ(arena.chunk_count(), 2u);
}

TEST(Arena, ReplayedRunAllocatesNothing) {
  BufferPool pool;
  Arena arena(pool, 8192);
  auto run = [&arena](std::vector<std::uintptr_t>& where) {
    where.clear();
    const std::int64_t sizes[] = {100, 3000, 5000, 20000, 7, 8000, 1};
    for (std::int64_t n : sizes) {
      Tensor t = arena.allocate(DType::F32, Shape{n});
      where.push_back(address(t));
    }
  };
  std::vector<std::uintptr_t> first, second;
  first.reserve(16);
  second.reserve(16);
  run(first);
  arena.reset();
  const std::uint64_t system_before = pool.system_allocations();
  const std::size_t chunks_before = arena.chunk_count();
  const std::uint64_t news_before = g_news.load();
  run(second);
  arena.reset();
  const std::uint64_t news_after = g_news.load();
  EXPECT_EQ(news_after, news_before);
  EXPECT_EQ(pool.system_allocations(), system_before);
  EXPECT_EQ(arena.chunk_count(), chunks_before);
  EXPECT_EQ(first, second);
}

TEST(Arena, ReleasingAnArenaTensorThrows) {
  BufferPool pool;
  Arena arena(pool);
  Tensor a = arena.allocate(DType::F32, Shape{2});
  try {
    a.release();
    ADD_FAILURE() << "release accepted";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Pool);
  }
}

TEST(Arena, ShapeLimitsAreCheckedBeforeAllocating) {
  BufferPool pool;
  Arena arena(pool);
  EXPECT_THROW((void)arena.allocate(DType::F32, Shape{536870912}), TensorError);
  EXPECT_EQ(arena.chunk_count(), 0u);
}

TEST(Arena, ChunksReturnToThePool) {
  BufferPool pool;
  {
    Arena arena(pool);
    (void)arena.allocate(DType::F32, Shape{10});
  }
  EXPECT_EQ(pool.idle_blocks(Arena::kDefaultChunkBytes), 1u);
}

TEST(ArenaChecked, NewAllocationsReadAsAllOnes) {
  if (!checked_build()) GTEST_SKIP() << "fill exists only in Checked builds";
  BufferPool pool;
  Arena arena(pool);
  Tensor a = arena.allocate(DType::I32, Shape{5});
  a.set<std::int32_t>({0}, 3);
  arena.reset();
  Tensor b = arena.allocate(DType::I32, Shape{5});
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(b.at<std::int32_t>({i}), -1) << i;
}

TEST(ArenaChecked, WritePastAnAllocationMakesResetThrow) {
  if (!checked_build()) GTEST_SKIP() << "canaries exist only in Checked builds";
  BufferPool pool;
  Arena arena(pool);
  Tensor a = arena.allocate(DType::U8, Shape{10});
  Tensor b = arena.allocate(DType::U8, Shape{10});
  (void)b;
  a.buffer()->data()[a.byte_offset() + 10] = std::byte{0};  // first canary byte after a
  try {
    arena.reset();
    ADD_FAILURE() << "overrun not reported";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Overrun);
  }
  // The reset completed: the arena is usable and clean again.
  EXPECT_TRUE(a.is_stale());
  (void)arena.allocate(DType::U8, Shape{10});
  EXPECT_NO_THROW(arena.reset());
}

}  // namespace
}  // namespace onemodel
