#include "tests/support/same_outputs.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "onemodel/dtype.hpp"

namespace onemodel::test {
namespace {

std::vector<std::byte> bytes_of(const Tensor& t) {
  std::vector<std::byte> out(static_cast<std::size_t>(t.element_count()) * dtype_size(t.dtype()));
  t.copy_to(out);
  return out;
}

void expect_same_tensor(const Tensor& x, const Tensor& y, const std::string& where) {
  ASSERT_EQ(x.dtype(), y.dtype()) << where;
  ASSERT_EQ(x.shape(), y.shape()) << where;
  const std::vector<std::byte> p = bytes_of(x), q = bytes_of(y);
  ASSERT_EQ(p.size(), q.size()) << where;
  const std::size_t width = dtype_size(x.dtype());
  for (std::size_t k = 0; k + width <= p.size(); k += width) {
    if (std::memcmp(p.data() + k, q.data() + k, width) == 0) continue;
    if (x.dtype() == DType::F32) {
      std::uint32_t u = 0, v = 0;
      std::memcpy(&u, p.data() + k, 4);
      std::memcpy(&v, q.data() + k, 4);
      float f = 0.0f, g = 0.0f;
      std::memcpy(&f, &u, 4);
      std::memcpy(&g, &v, 4);
      FAIL() << where << " element " << k / width << ": " << f << " (0x" << std::hex << u << ") vs " << g << " (0x" << v
             << ")";
    }
    FAIL() << where << " element " << k / width << " differs";
  }
}

}  // namespace

void expect_same_outputs(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    expect_same_tensor(a[i], b[i], what + " output " + std::to_string(i));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace onemodel::test
