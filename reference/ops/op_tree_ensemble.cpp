// TreeEnsemble (ai.onnx.ml, version 5): spec/ops/ml.md section 3. X [N, F] float32 or float64;
// for each row, every tree (in tree_roots order) is walked from its root to one leaf, comparing
// the row's feature with the node's split in binary64 (or testing set membership); the leaf's
// weight goes to its target. Aggregation per target in tree order: SUM (from +0), AVERAGE (the sum
// divided by the number of trees), MIN, MAX (0 for a target no tree reached: ONNX Runtime's
// value). Then post_transform (section 3.1, tree_post_transform.hpp). Comparisons and sums in a
// stated order, exact transcendentals: exact.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/norm_helpers.hpp"
#include "reference/ops/tree_post_transform.hpp"

namespace onemodel {
namespace {

enum class Branch : std::uint8_t { leq = 0, lt = 1, gte = 2, gt = 3, eq = 4, neq = 5, member = 6 };
enum class Aggregate { average = 0, sum = 1, min = 2, max = 3 };

// A tensor attribute's values widened to binary64 (float32 exactly); integer modes as int64.
std::vector<double> tensor_as_doubles(const NodeInfo& node, const char* name, bool required) {
  const std::optional<Tensor> t = node.get_tensor(name);
  if (!t) {
    if (required) node.fail_invalid(std::string("attribute ") + name + " is required");
    return {};
  }
  std::vector<double> out;
  if (t->dtype() == DType::F64) return t->contiguous().to_vector<double>();
  if (t->dtype() == DType::F32) {
    for (float v : t->contiguous().to_vector<float>()) out.push_back(v);
    return out;
  }
  node.fail_unsupported(std::string("attribute ") + name + " of element type " + std::string(dtype_name(t->dtype())));
}

struct Tree {
  std::vector<std::int64_t> feature, true_id, false_id;
  std::vector<bool> true_leaf, false_leaf, nan_true;
  std::vector<Branch> mode;
  std::vector<double> split;
  std::vector<std::vector<double>> members;  // per node; only BRANCH_MEMBER nodes have entries
  std::vector<std::int64_t> roots, leaf_target;
  std::vector<double> leaf_weight;
  std::int64_t targets = 0;
  Aggregate aggregate = Aggregate::sum;
  tree_post::Transform post = tree_post::Transform::none;
};

Tree read_tree(const NodeInfo& node) {
  Tree t;
  t.feature = node.get_ints("nodes_featureids");
  t.true_id = node.get_ints("nodes_truenodeids");
  t.false_id = node.get_ints("nodes_falsenodeids");
  const auto true_leafs = node.get_ints("nodes_trueleafs");
  const auto false_leafs = node.get_ints("nodes_falseleafs");
  const auto nan_true = node.get_ints("nodes_missing_value_tracks_true");
  t.split = tensor_as_doubles(node, "nodes_splits", true);
  const std::optional<Tensor> modes = node.get_tensor("nodes_modes");
  if (!modes) node.fail_invalid("attribute nodes_modes is required");
  if (modes->dtype() != DType::U8) node.fail_invalid("nodes_modes must be a uint8 tensor");
  const auto mode_values = modes->contiguous().to_vector<std::uint8_t>();
  t.roots = node.get_ints("tree_roots");
  t.leaf_target = node.get_ints("leaf_targetids");
  t.leaf_weight = tensor_as_doubles(node, "leaf_weights", true);
  t.targets = node.get_int("n_targets", 1);
  const std::size_t n = t.feature.size();
  if (n == 0) node.fail_invalid("has no nodes");
  if (t.true_id.size() != n || t.false_id.size() != n || true_leafs.size() != n || false_leafs.size() != n ||
      t.split.size() != n || mode_values.size() != n || (!nan_true.empty() && nan_true.size() != n)) {
    node.fail_invalid("the nodes_* attributes must all have " + std::to_string(n) + " entries");
  }
  if (t.leaf_target.size() != t.leaf_weight.size() || t.leaf_target.empty()) {
    node.fail_invalid("leaf_targetids and leaf_weights must have the same, non-zero length");
  }
  if (t.targets < 1 || t.targets > kMaxElements) node.fail_invalid("n_targets must be positive");
  if (t.roots.empty()) node.fail_invalid("tree_roots is empty");
  const auto leaves = static_cast<std::int64_t>(t.leaf_target.size());
  const auto nodes = static_cast<std::int64_t>(n);
  for (std::int64_t r : t.roots) {
    if (r < 0 || r >= nodes) node.fail_invalid("tree root " + std::to_string(r) + " outside [0, " + std::to_string(nodes) + ")");
  }
  for (std::int64_t id : t.leaf_target) {
    if (id < 0 || id >= t.targets) node.fail_invalid("leaf target " + std::to_string(id) + " outside [0, n_targets)");
  }
  std::size_t member_nodes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (mode_values[i] > 6) node.fail_invalid("node " + std::to_string(i) + " has an unknown mode " + std::to_string(mode_values[i]));
    t.mode.push_back(static_cast<Branch>(mode_values[i]));
    if (t.mode.back() == Branch::member) ++member_nodes;
    for (int side = 0; side < 2; ++side) {
      const std::int64_t leaf_flag = side == 0 ? true_leafs[i] : false_leafs[i];
      const std::int64_t id = side == 0 ? t.true_id[i] : t.false_id[i];
      if (leaf_flag != 0 && leaf_flag != 1) node.fail_invalid("nodes_trueleafs/falseleafs entries must be 0 or 1");
      const std::int64_t limit = leaf_flag == 1 ? leaves : nodes;
      if (id < 0 || id >= limit) node.fail_invalid("node " + std::to_string(i) + " branches to " + std::to_string(id) + ", outside [0, " + std::to_string(limit) + ")");
    }
    if (t.feature[i] < 0) node.fail_invalid("node " + std::to_string(i) + " has a negative feature id");
    t.true_leaf.push_back(true_leafs[i] == 1);
    t.false_leaf.push_back(false_leafs[i] == 1);
    t.nan_true.push_back(!nan_true.empty() && nan_true[i] != 0);
  }
  // membership_values: one set per BRANCH_MEMBER node, in node order, each ended by a NaN (a last
  // set may omit its NaN).
  const std::vector<double> members = tensor_as_doubles(node, "membership_values", false);
  std::vector<std::vector<double>> sets(1);
  for (double v : members) {
    if (std::isnan(v)) sets.emplace_back();
    else sets.back().push_back(v);
  }
  if (sets.back().empty()) sets.pop_back();
  if (sets.size() != member_nodes) {
    node.fail_invalid("membership_values holds " + std::to_string(sets.size()) + " sets for " +
                      std::to_string(member_nodes) + " BRANCH_MEMBER nodes");
  }
  t.members.resize(n);
  std::size_t next_set = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t.mode[i] == Branch::member) t.members[i] = sets[next_set++];
  }
  const std::int64_t aggregate = node.get_int("aggregate_function", 1);
  if (aggregate < 0 || aggregate > 3) node.fail_invalid("aggregate_function must be 0 to 3");
  t.aggregate = static_cast<Aggregate>(aggregate);
  const std::int64_t post = node.get_int("post_transform", 0);
  if (post < 0 || post > 4) node.fail_invalid("post_transform must be 0 to 4");
  t.post = static_cast<tree_post::Transform>(post);
  return t;
}

// Section 3: the branch taken at node i for feature value v (binary64). A NaN goes to the true
// branch when the node tracks missing values as true; otherwise the IEEE comparison decides (every
// comparison with NaN is false except !=, and NaN is no member).
bool goes_true(const Tree& t, std::size_t i, double v) {
  if (std::isnan(v) && t.nan_true[i]) return true;
  const double s = t.split[i];
  switch (t.mode[i]) {
    case Branch::leq: return v <= s;
    case Branch::lt: return v < s;
    case Branch::gte: return v >= s;
    case Branch::gt: return v > s;
    case Branch::eq: return v == s;
    case Branch::neq: return v != s;
    case Branch::member:
      for (double m : t.members[i]) {
        if (v == m) return true;
      }
      return false;
  }
  return false;
}

class TreeEnsemble final : public OpKernel {
 public:
  explicit TreeEnsemble(const NodeInfo& node) : tree_(read_tree(node)) {}

  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    const Shape& x = context.input_shape(0);
    if (x.rank() != 2) context.node().fail_invalid("X must be 2-D [N, F], got " + x.to_string());
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), {x[0], tree_.targets}));
  }

  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  template <class T>
  void run_typed(const RunContext& context) const {
    const Tensor x = context.input(0).contiguous();
    const std::int64_t rows = x.shape()[0], features = x.shape()[1];
    for (std::int64_t f : tree_.feature) {
      if (f >= features) {
        shape_ops::fail_index(context.node(), "feature id " + std::to_string(f) + " outside the " +
                                                  std::to_string(features) + " features of X");
      }
    }
    const T* in = x.data<T>().data();
    T* out = context.output(0).mutable_data<T>().data();
    const auto targets = static_cast<std::size_t>(tree_.targets);
    const std::size_t nodes = tree_.feature.size();
    std::vector<T> acc(targets);
    std::vector<bool> reached(targets);
    for (std::int64_t r = 0; r < rows; ++r) {
      std::fill(acc.begin(), acc.end(), T{0});
      std::fill(reached.begin(), reached.end(), false);
      for (std::int64_t root : tree_.roots) {
        // Walk to a leaf; a walk longer than the node count has met a cycle.
        std::size_t i = static_cast<std::size_t>(root);
        std::int64_t leaf = -1;
        for (std::size_t steps = 0; leaf < 0; ++steps) {
          if (steps > nodes) context.node().fail_invalid("the tree from root " + std::to_string(root) + " has a cycle");
          const double v = static_cast<double>(in[r * features + tree_.feature[i]]);
          const bool branch = goes_true(tree_, i, v);
          const std::int64_t next = branch ? tree_.true_id[i] : tree_.false_id[i];
          if (branch ? tree_.true_leaf[i] : tree_.false_leaf[i]) leaf = next;
          else i = static_cast<std::size_t>(next);
        }
        const auto target = static_cast<std::size_t>(tree_.leaf_target[static_cast<std::size_t>(leaf)]);
        const T w = static_cast<T>(tree_.leaf_weight[static_cast<std::size_t>(leaf)]);
        // Section 3, aggregation in tree order, each operation rounded in T.
        if (tree_.aggregate == Aggregate::min) acc[target] = !reached[target] || w < acc[target] ? w : acc[target];
        else if (tree_.aggregate == Aggregate::max) acc[target] = !reached[target] || w > acc[target] ? w : acc[target];
        else acc[target] = acc[target] + w;
        reached[target] = true;
      }
      for (std::size_t k = 0; k < targets; ++k) {
        if (tree_.aggregate == Aggregate::average) acc[k] = acc[k] / static_cast<T>(tree_.roots.size());
      }
      tree_post::apply(tree_.post, std::span<T>(acc));
      for (std::size_t k = 0; k < targets; ++k) out[static_cast<std::size_t>(r) * targets + k] = norms::store(acc[k]);
    }
  }

  Tree tree_;
};

}  // namespace

std::unique_ptr<OpKernel> make_tree_ensemble(const NodeInfo& node) { return std::make_unique<TreeEnsemble>(node); }

}  // namespace onemodel
