// Session load time on hostile graph shapes (a measurement, never a test; issue 11 defect 5):
// each shape is generated as ONNX bytes with `n` nodes (10^5 by default) and loaded with
// Session::load_bytes in both engines; the optimized engine's graph passes and first plan must
// stay near-linear in the graph size (spec/optimized-engine.md, "Load time"). Printed per shape:
// the file size, the load time of each engine and the time of the first run (which makes the
// plan) on a one-element input. Usage: bench_load_time [n] [shape]; docs/performance.md keeps
// the figures.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/session.hpp"

namespace {

using namespace onemodel;

// Just enough of the protobuf wire format to write a ModelProto (onnx.proto field numbers).
class Proto {
 public:
  Proto& varint(std::uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  Proto& integer(std::uint32_t field, std::int64_t v) { return varint(field << 3).varint(static_cast<std::uint64_t>(v)); }
  Proto& text(std::uint32_t field, std::string_view s) {
    varint((field << 3) | 2).varint(s.size());
    bytes_.append(s);
    return *this;
  }
  Proto& message(std::uint32_t field, const Proto& m) { return text(field, m.bytes_); }
  Proto& f32(std::uint32_t field, float v) {
    varint((field << 3) | 5);
    char raw[4];
    std::memcpy(raw, &v, 4);
    bytes_.append(raw, 4);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// A graph under construction: NodeProto field 1 inputs, 2 outputs, 3 name, 4 op_type, 5 attribute.
struct Graph {
  Proto graph;
  int nodes = 0;

  void node(std::string_view op, const std::vector<std::string>& inputs, const std::string& output,
            const Proto* attribute = nullptr) {
    Proto n;
    for (const std::string& in : inputs) n.text(1, in);
    n.text(2, output).text(3, "n" + std::to_string(nodes++)).text(4, op);
    if (attribute != nullptr) n.message(5, *attribute);
    graph.message(1, n);
  }
  // A float32 initializer (TensorProto: 1 dims, 2 data_type, 4 float_data, 8 name).
  void initializer(const std::string& name, const std::vector<std::int64_t>& dims, float value) {
    Proto t;
    for (std::int64_t d : dims) t.integer(1, d);
    t.integer(2, 1).f32(4, value).text(8, name);
    graph.message(5, t);
  }
  // ValueInfoProto (1 name, 2 type) of a float32 tensor, with a shape of fixed dims when given.
  static Proto value_info(const std::string& name, const std::vector<std::int64_t>* dims) {
    Proto tensor;
    tensor.integer(1, 1);
    if (dims != nullptr) {
      Proto shape;
      for (std::int64_t d : *dims) shape.message(1, Proto().integer(1, d));
      tensor.message(2, shape);
    }
    return Proto().text(1, name).message(2, Proto().message(1, tensor));
  }
  void input(const std::string& name, const std::vector<std::int64_t>& dims) { graph.message(11, value_info(name, &dims)); }
  void output(const std::string& name) { graph.message(12, value_info(name, nullptr)); }

  std::string model() const {
    Proto opset;
    opset.text(1, "").integer(2, 17);
    Proto m;
    m.integer(1, 8).message(8, opset).message(7, graph);
    return m.bytes();
  }
};

std::string v(int i) { return "v" + std::to_string(i); }

// The shapes. Each takes input x float32[1] and has about n nodes.
std::string make_shape(std::string_view shape, int n) {
  Graph g;
  g.input("x", {1});
  g.initializer("c", {}, 0.5f);
  if (shape == "siblings-outputs") {
    // n element-wise nodes reading x, each result a graph output (issue 11: 5,000 outputs).
    for (int i = 0; i < n; ++i) {
      g.node("Add", {"x", "c"}, v(i));
      g.output(v(i));
    }
  } else if (shape == "siblings-fan-in") {
    // n - 1 element-wise siblings of x read by one Sum (wide fan-in, one output).
    std::vector<std::string> all;
    for (int i = 0; i + 1 < n; ++i) {
      g.node(i % 2 == 0 ? "Relu" : "Sigmoid", {"x"}, v(i));
      all.push_back(v(i));
    }
    g.node("Sum", all, "y");
    g.output("y");
  } else if (shape == "chain") {
    // One element-wise chain of n nodes (fused into one program).
    std::string prev = "x";
    for (int i = 0; i < n; ++i) {
      g.node(i % 2 == 0 ? "Mul" : "Add", {prev, "c"}, v(i));
      prev = v(i);
    }
    g.output(prev);
  } else if (shape == "chain-untyped") {
    // A chain after a Cast whose result type no declaration states: no fusion, and every
    // node's "is it float32" question walks the chain up to the Cast.
    Proto to;
    to.text(1, "to").integer(3, 1).integer(20, 2);
    g.node("Cast", {"x"}, v(0), &to);
    std::string prev = v(0);
    for (int i = 1; i < n; ++i) {
      g.node("Relu", {prev}, v(i));
      prev = v(i);
    }
    g.output(prev);
  } else if (shape == "matmul-chain") {
    // n products by a constant [1,1] matrix (linear-pack-fuse on each).
    g.input("a", {1, 1});
    g.initializer("w", {1, 1}, 0.5f);
    std::string prev = "a";
    for (int i = 0; i < n; ++i) {
      g.node("MatMul", {prev, "w"}, v(i));
      prev = v(i);
    }
    g.output(prev);
  } else if (shape == "conv-relu") {
    // n / 2 Conv -> Relu pairs (conv-activation on each).
    g.input("a", {1, 1, 1, 1});
    g.initializer("w", {1, 1, 1, 1}, 0.5f);
    std::string prev = "a";
    for (int i = 0; i + 1 < n; i += 2) {
      g.node("Conv", {prev, "w"}, v(i));
      g.node("Relu", {v(i)}, v(i + 1));
      prev = v(i + 1);
    }
    g.output(prev);
  } else {
    return {};
  }
  return g.model();
}

const char* const kShapes[] = {"siblings-outputs", "siblings-fan-in", "chain", "chain-untyped", "matmul-chain",
                               "conv-relu"};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Load time and first-run time (the first plan) of one engine, in seconds.
void measure(const std::string& bytes, std::string_view shape, EngineKind engine, double& load, double& first_run) {
  SessionOptions options;
  options.engine = engine;
  options.intra_op_threads = 1;
  auto owner = std::make_shared<std::string>(bytes);
  const ByteView view{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
  const auto start = std::chrono::steady_clock::now();
  Session session = Session::load_bytes(view, std::string(shape), options);
  load = seconds_since(start);
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const TensorInfo& in : session.inputs()) {
    const std::vector<std::int64_t> ones(in.dims.size(), 1);
    const Shape s{std::span<const std::int64_t>(ones)};
    feeds.emplace_back(in.name, Tensor::from_values<float>(DType::F32, s, std::vector<float>(1, 0.25f)));
  }
  const auto run_start = std::chrono::steady_clock::now();
  (void)session.run(feeds);
  first_run = seconds_since(run_start);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const std::string only = argc > 2 ? argv[2] : "";
  if (n < 2) {
    std::fprintf(stderr, "usage: bench_load_time [nodes >= 2] [shape]\n");
    return 2;
  }
  std::printf("%-18s %8s %10s | %-24s | %-24s\n", "shape", "nodes", "file KB", "optimized load / 1st run",
              "reference load / 1st run");
  for (const char* shape : kShapes) {
    if (!only.empty() && only != shape) continue;
    const std::string bytes = make_shape(shape, n);
    double opt_load = 0, opt_run = 0, ref_load = 0, ref_run = 0;
    measure(bytes, shape, EngineKind::Optimized, opt_load, opt_run);
    measure(bytes, shape, EngineKind::Reference, ref_load, ref_run);
    std::printf("%-18s %8d %10.0f | %9.3f s / %9.3f s | %9.3f s / %9.3f s\n", shape, n,
                static_cast<double>(bytes.size()) / 1024.0, opt_load, opt_run, ref_load, ref_run);
    std::fflush(stdout);
  }
  return 0;
}
