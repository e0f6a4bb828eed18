// Buffer::borrow (issue 16, the Python package's inputs without a copy): a buffer over caller
// memory that keeps its owner alive, is never returned to a pool, refuses release(), and serves as
// a session input at any element-aligned offset from its 64-byte-aligned start. Expected values:
// the classifier's probabilities as ONNX Runtime 1.31.1 computes them for x = 5.1 3.5 1.4 0.2
// (0.232286, 0.28132826, 0.4863858; also tests/c/c_api_test.c), and the same bits as a copied input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "onemodel/buffer.hpp"
#include "onemodel/session.hpp"
#include "onemodel/tensor.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

std::filesystem::path sample(const char* name) {
  return std::filesystem::path(ONEMODEL_SOURCE_DIR) / "models/samples" / name;
}

// 64-byte-aligned storage with room for an input at any offset below 64.
struct AlignedBlock {
  std::vector<std::byte> storage = std::vector<std::byte>(512 + 64);
  std::byte* start() {
    const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
    return storage.data() + (64 - address % 64) % 64;
  }
};

TEST(BufferBorrow, KeepsTheOwnerAliveAndNeverFreesItsMemory) {
  auto block = std::make_shared<AlignedBlock>();
  std::weak_ptr<AlignedBlock> watch = block;
  std::shared_ptr<Buffer> buffer = Buffer::borrow(block->start(), 256, block);
  block.reset();
  EXPECT_FALSE(watch.expired());  // the buffer holds the owner
  EXPECT_TRUE(buffer->borrowed());
  EXPECT_EQ(buffer->data(), watch.lock()->start());
  EXPECT_EQ(buffer->length(), 256u);
  EXPECT_TRUE(buffer->canary_intact());
  try {
    buffer->release();
    ADD_FAILURE() << "a borrowed buffer was released";
  } catch (const TensorError& e) {
    EXPECT_EQ(e.kind(), TensorErrorKind::Pool);
  }
  EXPECT_FALSE(buffer->released());
  EXPECT_EQ(buffer->data(), watch.lock()->start());
  buffer.reset();
  EXPECT_TRUE(watch.expired());  // the last reference let the owner go
}

TEST(BufferBorrow, RefusesAnUnalignedStart) {
  AlignedBlock block;
  EXPECT_THROW(Buffer::borrow(block.start() + 4, 16, nullptr), TensorError);
  EXPECT_FALSE(BufferPool::shared().rent(16)->borrowed());
}

TEST(BufferBorrow, ATensorOverBorrowedMemoryIsASessionInput) {
  const float x[4] = {5.1f, 3.5f, 1.4f, 0.2f};
  const float want[3] = {0.232286f, 0.28132826f, 0.4863858f};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (EngineKind engine : {EngineKind::Optimized, EngineKind::Reference}) {
      SessionOptions o;
      o.mode = mode;
      o.engine = engine;
      const Session session = Session::load(sample("classifier.onnx"), o);
      const Tensor copied = Tensor::from_values<float>(DType::F32, Shape{1, 4}, std::span<const float>(x, 4));
      const std::vector<Tensor> expected = session.run({{"x", copied}});
      // Every element-aligned offset within the first 64 bytes: the tensor starts there.
      for (std::size_t offset = 0; offset < 64; offset += sizeof(float)) {
        auto block = std::make_shared<AlignedBlock>();
        std::memcpy(block->start() + offset, x, sizeof x);
        const std::vector<std::byte> before(block->start(), block->start() + offset + sizeof x);
        const Tensor input =
            Tensor::over(Buffer::borrow(block->start(), offset + sizeof x, block), offset, sizeof x, DType::F32, Shape{1, 4});
        EXPECT_NO_THROW(input.validate());
        EXPECT_EQ(input.data<float>().data(), reinterpret_cast<const float*>(block->start() + offset));
        const std::vector<Tensor> got = session.run({{"x", input}});
        ASSERT_EQ(got.size(), 1u);
        const std::vector<float> probs = got[0].to_vector<float>();
        const std::vector<float> same = expected[0].to_vector<float>();
        ASSERT_EQ(probs.size(), 3u);
        for (int k = 0; k < 3; ++k) {
          EXPECT_NEAR(probs[k], want[k], 1e-5) << "offset " << offset;
          EXPECT_EQ(std::memcmp(&probs[k], &same[k], sizeof(float)), 0) << "offset " << offset;
        }
        EXPECT_FALSE(got[0].buffer()->borrowed());
        // The run read the input and wrote nothing into the caller's memory.
        EXPECT_EQ(std::memcmp(before.data(), block->start(), before.size()), 0);
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
