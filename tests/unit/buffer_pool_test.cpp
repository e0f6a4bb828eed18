// spec/tensors.md section 6: size classes, free lists, the idle cap, generations, thread safety,
// and the Checked-build fill and canaries.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "onemodel/buffer.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

// The classes listed independently of the formula: 64, 128, 192, 256, then for every power of two
// b >= 256 the four classes 1.25b, 1.5b, 1.75b, 2b. A request is served by the smallest class that
// holds it (this is what "waste below 25 %" and the formula of section 6 describe).
std::vector<std::uint64_t> all_classes() {
  std::vector<std::uint64_t> classes = {64, 128, 192, 256};
  for (std::uint64_t b = 256; b < (std::uint64_t{1} << 31); b *= 2) {
    for (std::uint64_t q = 5; q <= 8; ++q) classes.push_back(b * q / 4);
  }
  return classes;
}

std::uint64_t smallest_class_holding(const std::vector<std::uint64_t>& classes, std::uint64_t n) {
  for (std::uint64_t c : classes) {
    if (c >= n) return c;
  }
  return 0;
}

TEST(BufferPool, ClassSizesWorkedByHand) {
  EXPECT_EQ(BufferPool::class_size(0), 64u);
  EXPECT_EQ(BufferPool::class_size(1), 64u);
  EXPECT_EQ(BufferPool::class_size(64), 64u);
  EXPECT_EQ(BufferPool::class_size(65), 128u);
  EXPECT_EQ(BufferPool::class_size(200), 256u);
  EXPECT_EQ(BufferPool::class_size(256), 256u);
  // n = 257: b = 256, step = 64, 256 + ceil(1/64)*64 = 320.
  EXPECT_EQ(BufferPool::class_size(257), 320u);
  EXPECT_EQ(BufferPool::class_size(320), 320u);
  EXPECT_EQ(BufferPool::class_size(321), 384u);
  EXPECT_EQ(BufferPool::class_size(512), 512u);
  // n = 513: b = 512, step = 128: 640. n = 1000: 512 + ceil(488/128)*128 = 1024.
  EXPECT_EQ(BufferPool::class_size(513), 640u);
  EXPECT_EQ(BufferPool::class_size(1000), 1024u);
  // n = 1025: b = 1024, step 256: 1280.
  EXPECT_EQ(BufferPool::class_size(1025), 1280u);
  EXPECT_EQ(BufferPool::class_size(1u << 20), 1u << 20);
  EXPECT_EQ(BufferPool::class_size((1u << 20) + 1), (1u << 20) + (1u << 18));
  // n = 2^31 - 1: b = 2^30, step = 2^28, 2^30 + 4 * 2^28 = 2^31.
  EXPECT_EQ(BufferPool::class_size(2147483647u), std::size_t{1} << 31);
  EXPECT_THROW((void)BufferPool::class_size(std::size_t{1} << 31), TensorError);
}

TEST(BufferPool, ClassIsTheSmallestListedClassForEveryRequestUpTo70000) {
  const auto classes = all_classes();
  for (std::uint64_t n = 0; n <= 70000; ++n) {
    ASSERT_EQ(BufferPool::class_size(n), smallest_class_holding(classes, n)) << n;
  }
}

TEST(BufferPool, ClassIsTheSmallestListedClassForRandomLargeRequests) {
  const auto classes = all_classes();
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t n = rng() % 2147483648ULL;  // 0 .. 2^31-1
    const std::uint64_t c = BufferPool::class_size(n);
    ASSERT_EQ(c, smallest_class_holding(classes, n)) << n;
    if (n > 256) {
      ASSERT_LT((c - n) * 4, n) << n;  // waste below 25 %
    }
  }
  for (int k = 9; k < 31; ++k) {  // around every power of two
    for (std::int64_t d = -2; d <= 2; ++d) {
      const std::uint64_t n = (std::uint64_t{1} << k) + static_cast<std::uint64_t>(d);
      ASSERT_EQ(BufferPool::class_size(n), smallest_class_holding(classes, n)) << n;
    }
  }
}

TEST(BufferPool, BuffersAreAlignedAndReleasedBlocksAreReused) {
  BufferPool pool;
  auto a = pool.rent(100);
  EXPECT_EQ(a->length(), 100u);
  EXPECT_EQ(a->capacity(), 128u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a->data()) % 64, 0u);
  EXPECT_EQ(a->generation(), 0u);
  EXPECT_EQ(a->version(), 0u);
  std::byte* block = a->data();
  EXPECT_EQ(pool.system_allocations(), 1u);
  a->release();
  EXPECT_EQ(a->generation(), 1u);
  EXPECT_TRUE(a->released());
  EXPECT_EQ(a->data(), nullptr);
  EXPECT_EQ(pool.idle_blocks(128), 1u);
  EXPECT_EQ(pool.idle_bytes(), 128u);
  // Same class (65..128 bytes): the block comes back from the free list.
  auto b = pool.rent(70);
  EXPECT_EQ(b->data(), block);
  EXPECT_EQ(pool.system_allocations(), 1u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
  // Another class: new memory.
  auto c = pool.rent(300);
  EXPECT_EQ(c->capacity(), 320u);
  EXPECT_EQ(pool.system_allocations(), 2u);
}

TEST(BufferPool, ReleasingTwiceThrows) {
  BufferPool pool;
  auto a = pool.rent(10);
  a->release();
  try {
    a->release();
    ADD_FAILURE() << "second release accepted";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Pool);
  }
}

TEST(BufferPool, IdleMemoryIsCapped) {
  BufferPool pool(300);  // room for one 256-byte block only
  EXPECT_EQ(pool.max_idle_bytes(), 300u);
  auto a = pool.rent(200);
  auto b = pool.rent(200);
  a->release();
  b->release();
  EXPECT_EQ(pool.idle_blocks(256), 1u);
  EXPECT_EQ(pool.idle_bytes(), 256u);
  EXPECT_EQ(BufferPool().max_idle_bytes(), std::size_t{2} << 30);
}

TEST(BufferPool, BlockLargerThanTheCapIsFreed) {
  BufferPool pool(100);  // below the smallest block that is released here (256)
  auto a = pool.rent(200);
  a->release();
  EXPECT_EQ(pool.idle_blocks(256), 0u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
  BufferPool none(0);
  none.rent(1)->release();
  EXPECT_EQ(none.idle_bytes(), 0u);
}

TEST(BufferPool, DroppedBufferReturnsItsMemory) {
  BufferPool pool;
  { auto a = pool.rent(1000); }
  EXPECT_EQ(pool.idle_blocks(1024), 1u);
}

TEST(BufferPool, BufferOutlivesItsPool) {
  std::shared_ptr<Buffer> survivor;
  {
    BufferPool pool;
    survivor = pool.rent(64);
  }
  std::memset(survivor->data(), 1, 64);
  survivor->release();  // frees the memory directly (ASan checks there is no leak or double free)
  EXPECT_TRUE(survivor->released());
}

TEST(BufferPool, ZeroingOnRequest) {
  BufferPool pool;
  auto a = pool.rent(1000, true);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(a->data()[i], std::byte{0}) << i;
}

TEST(BufferPool, ManyThreadsGetDisjointMemory) {
  BufferPool pool(1 << 16);
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&pool, &failures, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (int i = 0; i < 2000; ++i) {
        const std::size_t n = rng() % 3000;
        auto buf = pool.rent(n);
        std::memset(buf->data(), t + 1, n);
        std::this_thread::yield();
        for (std::size_t k = 0; k < n; ++k) {
          if (buf->data()[k] != static_cast<std::byte>(t + 1)) ++failures[static_cast<std::size_t>(t)];
        }
        buf->release();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  EXPECT_LE(pool.idle_bytes(), std::size_t{1} << 16);
}

TEST(BufferPoolChecked, NewMemoryReadsAsAllOnesAndCanaryFollows) {
  if (!checked_build()) GTEST_SKIP() << "fill and canaries exist only in Checked builds";
  BufferPool pool;
  auto a = pool.rent(100);
  for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(a->data()[i], std::byte{0xFF}) << i;
  for (std::size_t i = 100; i < 164; ++i) ASSERT_EQ(a->data()[i], std::byte{0xA5}) << i;
  EXPECT_TRUE(a->canary_intact());
  // Released memory is filled again: the block waits in the free list, so it is still ours to read.
  std::byte* raw = a->data();
  std::memset(raw, 0x11, 100);
  a->release();
  for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(raw[i], std::byte{0xFF}) << i;
  // A re-rented block is filled with 0xFF again, whatever the previous tenant wrote.
  auto b = pool.rent(128);
  ASSERT_EQ(b->data(), raw);
  for (std::size_t i = 0; i < 128; ++i) ASSERT_EQ(b->data()[i], std::byte{0xFF}) << i;
}

TEST(BufferPoolChecked, WritePastTheEndMakesReleaseThrow) {
  if (!checked_build()) GTEST_SKIP() << "canaries exist only in Checked builds";
  BufferPool pool;
  auto a = pool.rent(100);
  a->data()[100 + 63] = std::byte{0};  // the last canary byte
  EXPECT_FALSE(a->canary_intact());
  try {
    a->release();
    ADD_FAILURE() << "overrun not reported";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Overrun);
  }
  // The memory went back all the same.
  EXPECT_TRUE(a->released());
  EXPECT_EQ(pool.idle_blocks(128), 1u);
}

}  // namespace
}  // namespace onemodel
