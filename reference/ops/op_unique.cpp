// Unique (opsets 11, 28; 28 only added types): the distinct values of X, or with `axis` the
// distinct slices along it, and the optional outputs indices (first occurrence of each in X),
// inverse_indices (for each element or slice of X its position in Y) and counts (ONNX Unique text,
// numpy.unique; spec/ops/shape-indexing.md section 2, Unique). Without `axis` X is read flattened
// and Y is rank 1. `sorted` (default 1) orders Y ascending, slices compared element by element in
// row-major order (the first differing element decides); `sorted` 0 keeps the order of first
// occurrence. Equality and order are by value: +0 equals -0 (Y keeps the first occurrence's bits),
// every NaN equals every other NaN and orders after every number (numpy's equal_nan). Every stored
// type and STRING (spec/tensors.md section 8: strings order byte by byte as unsigned chars, which
// is std::string's order and the order ONNX Runtime 1.31.1 gives); bool orders false before true.
// Data dependent: the outputs are allocated in run(). Exact (comparisons only).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

// -1, 0, 1 as a is before, equal to, after b (NaN last, NaNs equal; +0 == -0).
template <class V>
int compare_values(const V& a, const V& b) {
  if constexpr (std::is_floating_point_v<V>) {
    const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  }
  if (a < b) return -1;
  if (b < a) return 1;
  return 0;
}

class Unique final : public OpKernel {
 public:
  explicit Unique(const NodeInfo& node)
      : has_axis_(node.has("axis")), axis_(node.get_int("axis", 0)), sorted_(node.get_int("sorted", 1)) {
    if (sorted_ != 0 && sorted_ != 1) node.fail_invalid("sorted must be 0 or 1, not " + std::to_string(sorted_));
    outputs_data_dependent = true;
    string_elements = true;  // compares and moves STRING elements too (spec/tensors.md section 8)
  }
  void infer(InferContext&) const override {}
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor x = context.input(0).contiguous();
    const Shape& shape = x.shape();
    // X as [outer, n, inner] around the axis; flattened: [1, size, 1].
    int axis = 0;
    std::int64_t outer = 1, n = x.element_count(), inner = 1;
    if (has_axis_) {
      axis = normalize_axis(node, axis_, shape.rank());
      outer = 1;
      for (int d = 0; d < axis; ++d) outer *= shape[d];  // bounded by the element count
      n = shape[axis];
      inner = 1;
      for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    }
    // Slice i's elements are (o * n + i) * inner + k for o < outer, k < inner, in that order.
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::vector<std::int64_t> group_of(static_cast<std::size_t>(n));  // position in Y of slice i
    std::vector<std::int64_t> first;                                   // first occurrence per group
    std::vector<std::int64_t> counts;
    // Sorts the slices and forms the groups; `compare` orders slices a and b (-1, 0, 1).
    const auto group = [&](const auto& compare) {
      // Stable: equal slices stay in index order, so a group's first member is its first occurrence.
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return compare(a, b) < 0; });
      for (std::size_t s = 0; s < order.size(); ++s) {
        if (s == 0 || compare(order[s - 1], order[s]) != 0) {
          first.push_back(order[s]);
          counts.push_back(0);
        }
        group_of[static_cast<std::size_t>(order[s])] = static_cast<std::int64_t>(first.size()) - 1;
        ++counts.back();
      }
    };
    // Compares slices a and b element by element in row-major order; value_at(flat) reads X.
    const auto slice_order = [&](const auto& value_at) {
      return [&, value_at](std::int64_t a, std::int64_t b) {
        for (std::int64_t o = 0; o < outer; ++o) {
          for (std::int64_t k = 0; k < inner; ++k) {
            const int c = compare_values(value_at((o * n + a) * inner + k), value_at((o * n + b) * inner + k));
            if (c != 0) return c;
          }
        }
        return 0;
      };
    };
    if (x.dtype() == DType::String) {
      const std::span<const std::string> data = x.data<std::string>();
      group(slice_order([data](std::int64_t i) -> const std::string& { return data[static_cast<std::size_t>(i)]; }));
    } else {
      ew::dispatch(x.dtype(), ew::StoredTypes{}, [&](auto tag) {
        using E = decltype(tag);
        const auto data = x.template data<typename E::storage>();
        group(slice_order([data](std::int64_t i) { return E::load(data[static_cast<std::size_t>(i)]); }));
      });
    }
    if (sorted_ == 0) {
      // Renumber the groups by first occurrence.
      std::vector<std::int64_t> by_first(first.size());
      std::iota(by_first.begin(), by_first.end(), std::int64_t{0});
      std::sort(by_first.begin(), by_first.end(), [&](std::int64_t a, std::int64_t b) {
        return first[static_cast<std::size_t>(a)] < first[static_cast<std::size_t>(b)];
      });
      std::vector<std::int64_t> rank_of(first.size());
      for (std::size_t r = 0; r < by_first.size(); ++r) rank_of[static_cast<std::size_t>(by_first[r])] = static_cast<std::int64_t>(r);
      std::vector<std::int64_t> new_first(first.size()), new_counts(first.size());
      for (std::size_t g = 0; g < first.size(); ++g) {
        new_first[static_cast<std::size_t>(rank_of[g])] = first[g];
        new_counts[static_cast<std::size_t>(rank_of[g])] = counts[g];
      }
      for (auto& g : group_of) g = rank_of[static_cast<std::size_t>(g)];
      first = new_first;
      counts = new_counts;
    }
    const std::int64_t k = static_cast<std::int64_t>(first.size());
    std::vector<std::int64_t> y_extents{k};
    if (has_axis_) {
      y_extents = extents_of(shape);
      y_extents[static_cast<std::size_t>(axis)] = k;
    }
    const Tensor& y = context.allocate_output(0, x.dtype(), make_shape(node, y_extents));
    const SourceElements src(x);
    const TargetElements dst(y);
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t g = 0; g < k; ++g) {
        for (std::int64_t i = 0; i < inner; ++i) {
          move_element(dst, (o * k + g) * inner + i, src, (o * n + first[static_cast<std::size_t>(g)]) * inner + i);
        }
      }
    }
    const auto write_ints = [&](std::size_t output, const std::vector<std::int64_t>& values) {
      if (!context.output_wanted(output)) return;
      const Tensor& t = context.allocate_output(output, DType::I64, Shape{static_cast<std::int64_t>(values.size())});
      std::copy(values.begin(), values.end(), t.mutable_data<std::int64_t>().begin());
    };
    write_ints(1, first);
    write_ints(2, group_of);
    write_ints(3, counts);
  }

 private:
  bool has_axis_;
  std::int64_t axis_;
  std::int64_t sorted_;
};

}  // namespace

std::unique_ptr<OpKernel> make_unique_op(const NodeInfo& node) { return std::make_unique<Unique>(node); }

}  // namespace onemodel
