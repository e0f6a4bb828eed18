// Einsum (opsets 12, 28; 28 only added types): output[out-term] = the sum, over every label of the
// inputs not in the output, of the product of the inputs at their terms (ONNX Einsum text;
// spec/ops/products-conv.md section 13). Labels are the letters (case matters); spaces are
// ignored; "..." stands for the same number of axes in every term that has it, their extents equal
// or 1 (broadcast). Explicit form "terms->out"; implicit form: the ellipsis axes first, then the
// letters that occur exactly once, in ASCII order. Order of evaluation (exact for f32 and f64, as
// only * and + are used): for each output element in row-major order, the summed labels run in
// row-major order over (first the letters in ASCII order, then ellipsis axes the output does not
// keep); each term is the product of the inputs' elements left to right, added to a sum that
// starts at +0 (integers wrap, spec/ops/elementwise.md section 4). f32, f64, i32, i64.
#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/integer_wrap.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

constexpr int kLetters = 52;  // A-Z then a-z: label ids in ASCII order
constexpr int kEllipsis = -1;

using EinsumTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>;

int label_of(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : (c >= 'a' && c <= 'z' ? 26 + (c - 'a') : -2); }

// One term: its labels in order, kEllipsis where "..." stands.
using Term = std::vector<int>;

Term parse_term(const NodeInfo& node, const std::string& text) {
  Term term;
  bool ellipsis = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ') continue;
    if (text.compare(i, 3, "...") == 0) {
      if (ellipsis) node.fail_invalid("term '" + text + "' has more than one ellipsis");
      ellipsis = true;
      term.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int label = label_of(text[i]);
    if (label < 0) node.fail_invalid("equation character '" + std::string(1, text[i]) + "' is not a letter, space or '...'");
    term.push_back(label);
  }
  return term;
}

// The shapes resolved: label extents, ellipsis axes, output axes and summed axes as "axis ids":
// 0..51 letters, 52 + j ellipsis axis j.
struct Plan {
  std::array<std::int64_t, kLetters> extent{};
  std::vector<std::int64_t> ellipsis;  // broadcast extents of the ellipsis axes
  std::vector<int> out_axes, sum_axes;
  std::int64_t axis_extent(int id) const {
    return id < kLetters ? extent[static_cast<std::size_t>(id)] : ellipsis[static_cast<std::size_t>(id - kLetters)];
  }
};

class Einsum final : public OpKernel {
 public:
  explicit Einsum(const NodeInfo& node) {
    const std::string equation = node.get_string("equation", "");
    if (equation.empty()) node.fail_invalid("attribute 'equation' is required");
    const std::size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = lhs.find(',', start);
      terms_.push_back(parse_term(node, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    explicit_ = arrow != std::string::npos;
    if (explicit_) {
      output_ = parse_term(node, equation.substr(arrow + 2));
      std::array<bool, kLetters> seen{};
      for (int label : output_) {
        if (label == kEllipsis) continue;
        if (seen[static_cast<std::size_t>(label)]) node.fail_invalid("output label repeated in '" + equation + "'");
        seen[static_cast<std::size_t>(label)] = true;
        bool in_input = false;
        for (const Term& t : terms_) in_input = in_input || std::find(t.begin(), t.end(), label) != t.end();
        if (!in_input) node.fail_invalid("output label not in any input term of '" + equation + "'");
      }
    }
  }
  void infer(InferContext& context) const override {
    ew::require(context, 0, EinsumTypes{});
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      if (context.input_type(i) != context.input_type(0)) context.node().fail_invalid("inputs differ in element type");
      shapes.push_back(context.input_shape(i));
    }
    const Plan plan = resolve(context.node(), shapes);
    std::vector<std::int64_t> out;
    for (int id : plan.out_axes) out.push_back(plan.axis_extent(id));
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), out));
  }
  void run(RunContext& context) const override {
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      inputs.push_back(context.input(i).contiguous());
      shapes.push_back(inputs.back().shape());
    }
    const Plan plan = resolve(context.node(), shapes);
    // For each input, the axis id of each of its axes (ellipsis axes mapped to 52 + j).
    std::vector<std::vector<int>> axis_ids(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      for (int label : terms_[i]) {
        if (label != kEllipsis) {
          axis_ids[i].push_back(label);
          continue;
        }
        for (std::size_t j = 0; j < plan.ellipsis.size(); ++j) axis_ids[i].push_back(kLetters + static_cast<int>(j));
      }
    }
    std::array<std::int64_t, kLetters + kMaxRank> value{};
    const auto offset_of = [&](std::size_t i) {
      std::int64_t at = 0;
      for (std::size_t d = 0; d < axis_ids[i].size(); ++d) {
        const std::int64_t e = shapes[i][static_cast<int>(d)];
        at = at * e + (e == 1 ? 0 : value[static_cast<std::size_t>(axis_ids[i][d])]);  // extent 1 broadcasts
      }
      return at;
    };
    ew::dispatch(inputs[0].dtype(), EinsumTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using V = typename E::value;
      std::vector<std::span<const typename E::storage>> data;
      for (const Tensor& t : inputs) data.push_back(t.template data<typename E::storage>());
      auto y = context.output(0).template mutable_data<typename E::storage>();
      // Odometers over the output axes and the summed axes, last axis fastest.
      const auto step = [&](const std::vector<int>& axes) {
        for (std::size_t k = axes.size(); k-- > 0;) {
          std::int64_t& v = value[static_cast<std::size_t>(axes[k])];
          if (++v < plan.axis_extent(axes[k])) return true;
          v = 0;
        }
        return false;
      };
      for (std::size_t o = 0; o < y.size(); ++o) {
        V sum = V{0};
        bool empty = false;
        for (int id : plan.sum_axes) empty = empty || plan.axis_extent(id) == 0;
        if (!empty) {
          do {
            V product = E::load(data[0][static_cast<std::size_t>(offset_of(0))]);
            for (std::size_t i = 1; i < data.size(); ++i) {
              const V v = E::load(data[i][static_cast<std::size_t>(offset_of(i))]);
              if constexpr (std::is_floating_point_v<V>) product = product * v;
              else product = ew::wrap_mul(product, v);
            }
            if constexpr (std::is_floating_point_v<V>) sum = sum + product;
            else sum = ew::wrap_add(sum, product);
          } while (step(plan.sum_axes));
        }
        if constexpr (std::is_floating_point_v<V>) y[o] = E::store(norms::store(sum));
        else y[o] = E::store(sum);
        step(plan.out_axes);
      }
    });
  }

 private:
  Plan resolve(const NodeInfo& node, const std::vector<Shape>& shapes) const {
    if (shapes.size() != terms_.size()) {
      node.fail_invalid("the equation has " + std::to_string(terms_.size()) + " input terms for " + std::to_string(shapes.size()) +
                        " inputs");
    }
    Plan plan;
    plan.extent.fill(-1);
    int ellipsis_rank = -1;
    std::array<int, kLetters> count{};
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Term& term = terms_[i];
      const bool has_ellipsis = std::find(term.begin(), term.end(), kEllipsis) != term.end();
      const int letters = static_cast<int>(term.size()) - (has_ellipsis ? 1 : 0);
      const int rank = shapes[i].rank();
      if (has_ellipsis ? rank < letters : rank != letters) {
        node.fail_invalid("input " + std::to_string(i) + " has rank " + std::to_string(rank) + " for a term of " +
                          std::to_string(letters) + " letters" + (has_ellipsis ? " and an ellipsis" : ""));
      }
      const int here = has_ellipsis ? rank - letters : -1;
      if (has_ellipsis) {
        if (ellipsis_rank >= 0 && here != ellipsis_rank) node.fail_invalid("the ellipsis stands for different numbers of axes");
        if (ellipsis_rank < 0) plan.ellipsis.assign(static_cast<std::size_t>(here), 1);
        ellipsis_rank = here;
      }
      int d = 0;
      for (int label : term) {
        if (label == kEllipsis) {
          for (int j = 0; j < here; ++j, ++d) {
            std::int64_t& e = plan.ellipsis[static_cast<std::size_t>(j)];
            const std::int64_t x = shapes[i][d];
            if (x != 1 && e != 1 && x != e) node.fail_invalid("ellipsis axes of extents " + std::to_string(e) + " and " + std::to_string(x) + " do not broadcast");
            if (x != 1) e = x;
          }
          continue;
        }
        std::int64_t& e = plan.extent[static_cast<std::size_t>(label)];
        const std::int64_t x = shapes[i][d++];
        if (e >= 0 && e != x) node.fail_invalid("a label has extents " + std::to_string(e) + " and " + std::to_string(x));
        e = x;
        ++count[static_cast<std::size_t>(label)];
      }
    }
    const int ell = ellipsis_rank < 0 ? 0 : ellipsis_rank;
    std::array<bool, kLetters> kept{};
    bool ellipsis_kept = false;
    if (explicit_) {
      for (int label : output_) {
        if (label == kEllipsis) {
          ellipsis_kept = true;
          for (int j = 0; j < ell; ++j) plan.out_axes.push_back(kLetters + j);
        } else {
          plan.out_axes.push_back(label);
          kept[static_cast<std::size_t>(label)] = true;
        }
      }
    } else {
      ellipsis_kept = true;
      for (int j = 0; j < ell; ++j) plan.out_axes.push_back(kLetters + j);
      for (int label = 0; label < kLetters; ++label) {
        if (count[static_cast<std::size_t>(label)] == 1) {
          plan.out_axes.push_back(label);
          kept[static_cast<std::size_t>(label)] = true;
        }
      }
    }
    if (plan.out_axes.size() > static_cast<std::size_t>(kMaxRank)) node.fail_unsupported("output rank above " + std::to_string(kMaxRank));
    for (int label = 0; label < kLetters; ++label) {
      if (count[static_cast<std::size_t>(label)] > 0 && !kept[static_cast<std::size_t>(label)]) plan.sum_axes.push_back(label);
    }
    if (!ellipsis_kept) {
      for (int j = 0; j < ell; ++j) plan.sum_axes.push_back(kLetters + j);
    }
    // The work is the output size times the summed count: both checked to fit 64 bits.
    std::int64_t work = 1;
    for (int id : plan.out_axes) work = checked_product(node, work, plan.axis_extent(id));
    for (int id : plan.sum_axes) work = checked_product(node, work, plan.axis_extent(id));
    return plan;
  }
  static std::int64_t checked_product(const NodeInfo& node, std::int64_t a, std::int64_t b) {
    if (b != 0 && a > std::numeric_limits<std::int64_t>::max() / b) node.fail_unsupported("the summation has more than 2^63 terms");
    return a * b;
  }

  std::vector<Term> terms_;
  bool explicit_ = false;
  Term output_;
};

}  // namespace

std::unique_ptr<OpKernel> make_einsum(const NodeInfo& node) { return std::make_unique<Einsum>(node); }

}  // namespace onemodel
