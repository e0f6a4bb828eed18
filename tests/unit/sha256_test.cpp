// SHA-256 against the FIPS 180-2 / NIST CSRC example vectors (expected digests from the NIST
// examples document, not from this code), plus chunked updates that must not change the digest.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/util/sha256.hpp"

namespace onemodel {
namespace {

TEST(Sha256, NistAbc) {
  EXPECT_EQ(sha256_hex(std::string_view("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, NistEmpty) {
  EXPECT_EQ(sha256_hex(std::string_view("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Nist448Bits) {
  EXPECT_EQ(sha256_hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, NistOneMillionA) {
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, NistOneMillionAInOddChunks) {
  Sha256 hash;
  const std::string chunk(997, 'a');
  std::size_t left = 1000000;
  std::size_t step = 1;
  while (left > 0) {
    const std::size_t take = std::min({left, step, chunk.size()});
    hash.update(std::string_view(chunk.data(), take));
    left -= take;
    step = step * 3 + 1;
  }
  EXPECT_EQ(to_hex(hash.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Messages whose padding straddles a block boundary, fed one byte at a time. Expected digests
// from Python's hashlib (an independent implementation).
TEST(Sha256, BoundaryLengthsByteByByte) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "85528b5baff5639cb8e7daca79d085ac29ac0978e873ed7527158616b2b6c379"},
      {56, "f8ce2f8d6990c639668fe404262f35ed72d8bb145ad6bae786af7284447386df"},
      {57, "243be04ce55d66163de2c19e9a13edbcea43775ecd0c28047f30338ea24a15af"},
      {63, "9b49777003a4143d8c3f4d3002eb631c6bda8b030a3ccc87f8a21d5f61c89e87"},
      {64, "ee8e658590c9a5e119400a774415a01db104de1ee6e2c29ec69aa73ef46544d2"},
      {65, "2b6c3f7f12b1b12fc5409626dc4e5302d8d37082cbeddea7755eac43aba039c8"},
      {119, "c8bc8a6e9626586bb888ad131d44ed2bd37fc608e902904ade3c566c4208e6ca"},
      {120, "77a2d49d72a11e41678c51f8f0cb67f5cb570f30370c3aeffe266a0d1ee43209"},
  };
  for (const auto& [length, expected] : cases) {
    const std::string message(length, 'q');
    Sha256 hash;
    for (char c : message) hash.update(std::string_view(&c, 1));
    EXPECT_EQ(to_hex(hash.finish()), expected) << length;
    EXPECT_EQ(sha256_hex(message), expected) << length;
  }
}

}  // namespace
}  // namespace onemodel
