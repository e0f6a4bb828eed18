// Range (opset 11+): start, limit, delta scalars of one type (float32, float64, int16, int32,
// int64, float16, bfloat16). Count = max(ceil((limit - start) / delta), 0): exact for the integer
// types, with the quotient taken in double precision from the values for the float types; element
// i = start + i * delta in the element type (integers computed modulo 2^64, exact for every element
// before limit; 16-bit floats computed in float32 and rounded to nearest even once). Delta 0 and a non-finite count are
// InvalidModel (spec/ops/shape-indexing.md section 2, Range).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;
using RangeTypes = ew::Types<ew::F32, ew::F64, ew::I16, ew::I32, ew::I64, ew::F16, ew::BF16>;

template <class E>
typename E::value scalar_of(const Tensor& t) {
  return E::load(t.contiguous().template data<typename E::storage>()[0]);
}

// The number of elements start + i * delta before limit, exactly, for any int64 values (delta
// nonzero): ceil((limit - start) / delta) when positive, with the difference taken in uint64,
// where it always fits.
std::uint64_t exact_count(std::int64_t start, std::int64_t limit, std::int64_t delta) {
  const std::uint64_t us = static_cast<std::uint64_t>(start), ul = static_cast<std::uint64_t>(limit);
  if (delta > 0) {
    if (limit <= start) return 0;
    return (ul - us - 1) / static_cast<std::uint64_t>(delta) + 1;
  }
  if (limit >= start) return 0;
  const std::uint64_t step = std::uint64_t{0} - static_cast<std::uint64_t>(delta);  // |delta|, even for INT64_MIN
  return (us - ul - 1) / step + 1;
}

class Range final : public OpKernel {
 public:
  void infer(InferContext& context) const override {
    ew::require(context, 0, RangeTypes{});
    const Tensor* start = value_or_defer(context, 0);
    const Tensor* limit = value_or_defer(context, 1);
    const Tensor* delta = value_or_defer(context, 2);
    if (start == nullptr || limit == nullptr || delta == nullptr) return;
    const NodeInfo& node = context.node();
    const DType type = context.input_type(0);
    if (context.input_type(1) != type || context.input_type(2) != type) node.fail_invalid("inputs differ in type");
    for (const Tensor* t : {start, limit, delta}) {
      if (t->element_count() != 1) node.fail_invalid("start, limit and delta must be scalars");
    }
    std::int64_t count = 0;
    ew::dispatch(type, RangeTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      if constexpr (std::is_integral_v<V>) {
        // Integers: the exact count (spec/operator-contract.md section 6). The quotient in double
        // rounds int64 values, and could count one element past limit (start 7580426294882326802,
        // limit 9223372036854775575, delta 1642945741972449151 gave 2 elements, the second past
        // INT64_MAX).
        const std::int64_t s = static_cast<std::int64_t>(scalar_of<E>(*start));
        const std::int64_t l = static_cast<std::int64_t>(scalar_of<E>(*limit));
        const std::int64_t d = static_cast<std::int64_t>(scalar_of<E>(*delta));
        if (d == 0) node.fail_invalid("delta 0");
        const std::uint64_t n = exact_count(s, l, d);
        if (n > static_cast<std::uint64_t>(kMaxElements)) node.fail_unsupported("element count beyond the library's limits");
        count = static_cast<std::int64_t>(n);
        return;
      }
      const double s = static_cast<double>(scalar_of<E>(*start));
      const double l = static_cast<double>(scalar_of<E>(*limit));
      const double d = static_cast<double>(scalar_of<E>(*delta));
      if (d == 0) node.fail_invalid("delta 0");
      const double n = std::ceil((l - s) / d);
      if (!std::isfinite(n)) node.fail_invalid("non-finite element count");
      if (n > static_cast<double>(kMaxElements)) node.fail_unsupported("element count beyond the library's limits");
      count = n > 0 ? static_cast<std::int64_t>(n) : 0;
    });
    context.set_output(0, type, Shape{count});
  }
  void run(RunContext& context) const override {
    const Tensor& out = context.output(0);
    ew::dispatch(out.dtype(), RangeTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      const V start = scalar_of<E>(context.input(0));
      const V delta = scalar_of<E>(context.input(2));
      std::span<typename E::storage> o = out.mutable_data<typename E::storage>();
      if constexpr (std::is_integral_v<V>) {
        // start + i * delta lies in [start, limit) for every i < count, but i * delta alone may
        // not fit (start INT64_MIN, delta 2^62, i = 3): computed modulo 2^64, exact once added.
        const std::uint64_t s = static_cast<std::uint64_t>(static_cast<std::int64_t>(start));
        const std::uint64_t d = static_cast<std::uint64_t>(static_cast<std::int64_t>(delta));
        for (std::size_t i = 0; i < o.size(); ++i) {
          o[i] = E::store(static_cast<V>(static_cast<std::int64_t>(s + static_cast<std::uint64_t>(i) * d)));
        }
        return;
      }
      for (std::size_t i = 0; i < o.size(); ++i) {
        o[i] = E::store(static_cast<V>(start + static_cast<V>(static_cast<V>(i) * delta)));
      }
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_range(const NodeInfo&) { return std::make_unique<Range>(); }

}  // namespace onemodel
