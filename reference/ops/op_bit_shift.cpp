// BitShift (opset 11): a << b or a >> b (attribute direction "LEFT" or "RIGHT") on unsigned
// integers with broadcasting; a shift by the bit width or more gives 0, bits shifted out are lost
// (spec/ops/elementwise.md section 9).
#include <string>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct BitShiftFn {
  bool left;
  template <class V>
  V operator()(V a, V b) const noexcept {
    if (static_cast<std::uint64_t>(b) >= sizeof(V) * 8) return 0;
    return left ? static_cast<V>(a << b) : static_cast<V>(a >> b);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_bit_shift(const NodeInfo& node) {
  const std::string direction = node.get_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") node.fail_invalid("direction must be \"LEFT\" or \"RIGHT\"");
  return ew::make_binary<ew::UnsignedTypes>(BitShiftFn{direction == "LEFT"});
}

}  // namespace onemodel
