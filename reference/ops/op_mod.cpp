// Mod (spec/ops/elementwise.md section 4). fmod = 0 (integers only): floor modulus, the result
// has the divisor's sign. fmod = 1: truncated remainder, the dividend's sign (C fmod for floats,
// exact). x % 0 is 0 and MinValue % -1 is 0. fmod = 0 on a float type is an invalid model.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct FloorModFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      return std::fmod(a, b);  // not reached: infer() refuses floats with fmod = 0
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return 0;
      }
      V r = static_cast<V>(a % b);
      if constexpr (std::is_signed_v<V>) {
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<V>(r + b);
      }
      return r;
    }
  }
};

struct TruncModFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      return std::fmod(a, b);
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return 0;
      }
      return static_cast<V>(a % b);
    }
  }
};

class ModKernel final : public OpKernel {
 public:
  explicit ModKernel(bool fmod)
      : fmod_(fmod), floor_(ew::make_binary<ew::NumericTypes>(FloorModFn{})),
        trunc_(ew::make_binary<ew::NumericTypes>(TruncModFn{})) {}
  void infer(InferContext& context) const override {
    if (!fmod_ && context.has_input(0) && dtype_is_floating(context.input_type(0))) {
      context.node().fail_invalid("fmod = 0 is not allowed for floating-point inputs");
    }
    (fmod_ ? trunc_ : floor_)->infer(context);
  }
  void run(RunContext& context) const override { (fmod_ ? trunc_ : floor_)->run(context); }

 private:
  bool fmod_;
  std::unique_ptr<OpKernel> floor_;
  std::unique_ptr<OpKernel> trunc_;
};

}  // namespace

std::unique_ptr<OpKernel> make_mod(const NodeInfo& node) {
  const std::int64_t fmod = node.get_int("fmod", 0);
  if (fmod != 0 && fmod != 1) node.fail_invalid("fmod must be 0 or 1");
  return std::make_unique<ModKernel>(fmod == 1);
}

}  // namespace onemodel
