// Loops and branches in exact mode (spec/ops/control-flow.md, spec/values.md): the iteration
// order is the only order, so every body's hashes must be the same on every path, thread count
// and platform. Bodies read outer inputs and initializers (captures), carry values, stack scan
// outputs, nest an If inside a Loop, and pass sequences between operators.
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

constexpr std::int32_t kFloat = 1;
constexpr std::int32_t kInt64 = 7;
constexpr std::int32_t kBool = 9;

Tensor random_float(Prng& prng, const Shape& shape, float scale) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

// A for-loop (trip count 12, no condition) running a recurrent cell: h' = Tanh(h W + x_i), x_i
// gathered from the outer input by the iteration number; inside, an If picks Relu or Sigmoid of
// the new state by the sign of its sum (a branch nested in a loop). Outputs: the final state and
// every state stacked.
GoldenGraph loop_rnn() {
  Prng prng = prng_for("loop_rnn");
  GraphBuilder g(17);
  const std::string xs = g.input("xs", random_float(prng, Shape{12, 2, 16}, 1.0f));
  const std::string h0 = g.input("h0", random_float(prng, Shape{2, 16}, 0.5f));
  g.constant("w", random_float(prng, Shape{16, 16}, 0.3f));
  g.constant("trip", int64_tensor(Shape{}, {12}));

  GraphBuilder then_branch(17, "then_");
  then_branch.node("Relu", {"h_new"}, {}, "then_out");
  then_branch.output("then_out");
  GraphBuilder else_branch(17, "else_");
  else_branch.node("Sigmoid", {"h_new"}, {}, "else_out");
  else_branch.output("else_out");

  GraphBuilder body(17, "body_");
  body.body_input("i", kInt64, 0);
  body.body_input("cond_in", kBool, 0);
  body.body_input("h", kFloat, 2);
  const std::string x_i = body.node("Gather", {"xs", "i"}, {attr_int("axis", 0)}, "x_i");
  const std::string hw = body.node("MatMul", {"h", "w"}, {}, "hw");
  body.node("Tanh", {body.node("Add", {hw, x_i}, {}, "pre")}, {}, "h_new");
  const std::string sum = body.node("ReduceSum", {"h_new"}, {attr_int("keepdims", 0)}, "sum");
  const std::string zero = body.constant("zero", float_tensor(Shape{}, {0.0f}));
  const std::string positive = body.node("Greater", {sum, zero}, {}, "positive");
  body.node("If", {positive}, {attr_graph("then_branch", then_branch.body()), attr_graph("else_branch", else_branch.body())},
            "h_out");
  body.node("Identity", {"cond_in"}, {}, "cond_out");
  body.node("Identity", {"h_out"}, {}, "h_scan");
  body.output("cond_out", kBool);
  body.output("h_out");
  body.output("h_scan");

  g.node_outputs("Loop", {"trip", "", h0}, {attr_graph("body", body.body())}, {"h_final", "h_all"});
  g.output("h_final");
  g.output("h_all");
  return g.finish();
}

// A while-loop (trip count 40 and a condition): x' = Softmax(x) * 3 + x * 0.5, carried with an
// int64 counter, until the sum of x' drops to 4 or below; the body's condition decides.
GoldenGraph loop_while() {
  Prng prng = prng_for("loop_while");
  GraphBuilder g(17);
  const std::string x0 = g.input("x0", random_float(prng, Shape{8}, 4.0f));
  g.constant("trip", int64_tensor(Shape{}, {40}));
  g.constant("go", bool_tensor(Shape{}, {1}));
  g.constant("count0", int64_tensor(Shape{}, {0}));

  GraphBuilder body(17, "body_");
  body.body_input("i", kInt64, 0);
  body.body_input("cond_in", kBool, 0);
  body.body_input("x", kFloat, 1);
  body.body_input("count", kInt64, 0);
  const std::string three = body.constant("three", float_tensor(Shape{}, {3.0f}));
  const std::string half = body.constant("half", float_tensor(Shape{}, {0.5f}));
  const std::string soft = body.node("Mul", {body.node("Softmax", {"x"}, {attr_int("axis", 0)}), three});
  body.node("Add", {soft, body.node("Mul", {"x", half})}, {}, "x_next");
  const std::string one = body.constant("one", int64_tensor(Shape{}, {1}));
  body.node("Add", {"count", one}, {}, "count_next");
  const std::string four = body.constant("four", float_tensor(Shape{}, {4.0f}));
  body.node("Greater", {body.node("ReduceSum", {"x_next"}, {attr_int("keepdims", 0)}), four}, {}, "cond_out");
  body.output("cond_out", kBool);
  body.output("x_next");
  body.output("count_next", kInt64);

  g.node_outputs("Loop", {"trip", "go", x0, "count0"}, {attr_graph("body", body.body())}, {"x_final", "count"});
  g.output("x_final");
  g.output("count", kInt64);
  return g.finish();
}

// Scan (opset 17 form) over two inputs, the second read in reverse, states carried, one scan
// output written in reverse order on axis 1: s' = Tanh(s W + a_t - b_t), y_t = Exp(-|s'|).
GoldenGraph scan_reverse() {
  Prng prng = prng_for("scan_reverse");
  GraphBuilder g(17);
  const std::string s0 = g.input("s0", random_float(prng, Shape{3, 8}, 0.5f));
  const std::string a = g.input("a", random_float(prng, Shape{9, 3, 8}, 1.0f));
  const std::string b = g.input("b", random_float(prng, Shape{3, 9, 8}, 1.0f));
  g.constant("w", random_float(prng, Shape{8, 8}, 0.4f));

  GraphBuilder body(17, "body_");
  body.body_input("s", kFloat, 2);
  body.body_input("a_t", kFloat, 2);
  body.body_input("b_t", kFloat, 2);
  const std::string pre = body.node("Sub", {body.node("Add", {body.node("MatMul", {"s", "w"}), "a_t"}), "b_t"});
  body.node("Tanh", {pre}, {}, "s_next");
  body.node("Exp", {body.node("Neg", {body.node("Abs", {"s_next"})})}, {}, "y_t");
  body.output("s_next");
  body.output("y_t");

  g.node_outputs("Scan", {s0, a, b},
                 {attr_graph("body", body.body()), attr_int("num_scan_inputs", 2),
                  attr_ints("scan_input_axes", {0, 1}), attr_ints("scan_input_directions", {0, 1}),
                  attr_ints("scan_output_axes", {1}), attr_ints("scan_output_directions", {1})},
                 {"s_final", "ys"});
  g.output("s_final");
  g.output("ys");
  return g.finish();
}

// Sequences between operators: SplitToSequence, SequenceMap (LayerNormalization-like arithmetic
// on each piece with a captured scale), SequenceInsert, SequenceErase, SequenceAt, SequenceLength
// and ConcatFromSequence (stacked and joined).
GoldenGraph sequence_chain() {
  Prng prng = prng_for("sequence_chain");
  GraphBuilder g(17);
  const std::string x = g.input("x", random_float(prng, Shape{6, 5}, 2.0f));
  const std::string extra = g.input("extra", random_float(prng, Shape{1, 5}, 2.0f));
  g.constant("scale", random_float(prng, Shape{5}, 1.0f));
  const std::string pieces = g.node("SplitToSequence", {x, g.constant("split", int64_tensor(Shape{}, {2}))},
                                    {attr_int("axis", 0)}, "pieces");

  GraphBuilder body(17, "body_");
  body.body_input("piece", kFloat, 2);
  const std::string centred = body.node("Sub", {"piece", body.node("ReduceMean", {"piece"}, {attr_ints("axes", {1})})});
  body.node("Mul", {body.node("Softmax", {centred}, {attr_int("axis", 1)}), "scale"}, {}, "mapped");
  body.output("mapped");

  const std::string mapped = g.node("SequenceMap", {pieces}, {attr_graph("body", body.body())}, "mapped_seq");
  const std::string first = g.node("SequenceAt", {mapped, g.constant("zero", int64_tensor(Shape{}, {0}))}, {}, "first");
  const std::string with_extra = g.node("SequenceInsert", {mapped, g.node("Concat", {extra, extra}, {attr_int("axis", 0)}),
                                                           g.constant("at", int64_tensor(Shape{}, {1}))});
  const std::string trimmed = g.node("SequenceErase", {with_extra, g.constant("last", int64_tensor(Shape{}, {-1}))});
  g.node("ConcatFromSequence", {trimmed}, {attr_int("axis", 0), attr_int("new_axis", 1)}, "stacked");
  g.node("ConcatFromSequence", {trimmed}, {attr_int("axis", 1)}, "joined");
  g.node("SequenceLength", {trimmed}, {}, "length");
  g.output("first");
  g.output("stacked");
  g.output("joined");
  g.output("length", kInt64);
  return g.finish();
}

}  // namespace

void add_control_cases(CaseList& cases) {
  cases.push_back({"loop_rnn", true, loop_rnn});
  cases.push_back({"loop_while", true, loop_while});
  cases.push_back({"scan_reverse", true, scan_reverse});
  cases.push_back({"sequence_chain", true, sequence_chain});
}

}  // namespace onemodel::golden
