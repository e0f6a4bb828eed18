#include "optimized/runtime/compiled_graph.hpp"

#include <algorithm>

#include "core/graph/constants_pool.hpp"
#include "core/graph/half_adapter.hpp"
#include "core/io/file_bytes.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/half_conversions.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/passes/graph_pass.hpp"
#include "reference/engine/operator_check.hpp"

namespace onemodel::opt {

int CompiledGraph::value_id(const std::string& name) const {
  for (std::size_t i = 0; i < value_names.size(); ++i) {
    if (value_names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// spec/half-precision.md section 8.7: the adapter converts with the session's vector path, in
// fixed chunks over the engine's pool (each chunk is the same integer arithmetic, so the bits do
// not depend on the path or the thread count), and widens binary16 Add/Sub/Mul/Div too, so that
// they run the binary32 vector kernels instead of the scalar binary16 ones (the same bits).
constexpr std::size_t kChunk = std::size_t{1} << 15;

// `convert(begin, count)` over [0, n) in the fixed chunks, shared over the pool when there are two or
// more (the chunks, not the thread count, decide where each value is converted).
template <typename Convert>
void in_chunks(ThreadPool* pool, std::size_t n, double ns_per_value, const Convert& convert) {
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  if (pool == nullptr || chunks < 2) {
    convert(std::size_t{0}, n);
    return;
  }
  pool->parallel_for(chunks, static_cast<double>(n) * ns_per_value, [&](std::size_t c) {
    const std::size_t begin = c * kChunk;
    convert(begin, std::min(kChunk, n - begin));
  });
}

HalfAdapterOptions half_adapter_options(const OptimizedConfig& config) {
  HalfAdapterOptions half;
  half.binary16_arithmetic_native = false;
  const Isa isa = config.isa;
  ThreadPool* pool = config.pool;
  half.widen = [isa, pool](const std::uint16_t* in, float* out, std::size_t n, bool bfloat16) {
    in_chunks(pool, n, 0.3, [&](std::size_t begin, std::size_t count) {
      widen_16_to_f32(isa, in + begin, out + begin, count, bfloat16);
    });
  };
  half.narrow = [isa, pool](const float* in, std::uint16_t* out, std::size_t n, bool bfloat16) {
    in_chunks(pool, n, 0.5, [&](std::size_t begin, std::size_t count) {
      narrow_f32_to_16(isa, in + begin, out + begin, count, bfloat16);
    });
  };
  return half;
}

}  // namespace

std::unique_ptr<CompiledGraph> compile_graph(const IrModel& model, const SessionOptions& options,
                                             const OptimizedConfig& config, const SubgraphCompiler* subgraphs) {
  const IrGraph& graph = model.graph;
  if (!graph.sparse_initializers.empty()) {
    throw SessionError(SessionErrorKind::Unsupported, "sparse initializers are not supported yet");
  }
  std::vector<std::unique_ptr<OpKernel>> kernels = make_kernels(
      graph, options,
      [&](const NodeInfo& info) -> std::unique_ptr<OpKernel> {
        const IrNode& node = info.ir();
        const OptimizedOpDef* def = find_optimized_op(node.domain, node.op_type, node.opset);
        return def != nullptr ? def->factory(info, config) : nullptr;
      },
      half_adapter_options(config), subgraphs);

  auto compiled = std::make_unique<CompiledGraph>();
  compiled->isa = config.isa;
  compiled->concat_in_place = options.optimization_level != OptimizationLevel::None;
  // The id of a value a name defines or reads; never -1, and always inside values: a name that
  // resolution did not bind (an in-memory model that skipped it, or "" which names nothing) is
  // InvalidModel here, not an index of -1 (issue 11, defect 1).
  const auto defined_id = [&](const std::string& name, const char* what) -> int {
    auto it = name.empty() ? graph.value_index.end() : graph.value_index.find(name);
    if (it == graph.value_index.end() || it->second < 0 ||
        static_cast<std::size_t>(it->second) >= graph.values.size()) {
      throw SessionError(SessionErrorKind::InvalidModel,
                         std::string(what) + " '" + name + "' names no value of the graph");
    }
    return it->second;
  };
  // A node's input or output: "" is an omitted optional operand, id -1 (graph-resolution.md
  // section 1); every consumer of node ids tests for it.
  const auto id_of = [&](const std::string& name) -> int {
    return name.empty() ? -1 : defined_id(name, "node operand");
  };
  compiled->value_names.reserve(graph.values.size());
  for (const IrValue& value : graph.values) compiled->value_names.push_back(value.name);
  compiled->initializers.resize(graph.values.size());
  compiled->compact.assign(graph.values.size(), 0);
  for (const IrTensor& initializer : graph.initializers) {
    const auto id = static_cast<std::size_t>(defined_id(initializer.name, "initializer"));
    compiled->initializers[id] =
        constant_from_ir(initializer, "initializer '" + initializer.name + "'");
    compiled->compact[id] = initializer.compact ? 1 : 0;
    // The copy is the engine's from now on: let the file's pages go as we go, so the file and
    // the copies are never resident together (peak memory of loading).
    release_file_pages(initializer.data);
  }
  for (const IrValueInfo& input : graph.inputs) compiled->input_ids.push_back(defined_id(input.name, "graph input"));
  for (const IrValueInfo& output : graph.outputs) {
    compiled->output_ids.push_back(defined_id(output.name, "graph output"));
  }

  // graph-runtime.md section 3 step 3: nodes with no path to an output are dropped.
  std::vector<bool> needed(graph.values.size(), false);
  for (int id : compiled->output_ids) needed[static_cast<std::size_t>(id)] = true;
  std::vector<bool> live(graph.nodes.size(), false);
  for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
    const IrNode& node = graph.nodes[static_cast<std::size_t>(*it)];
    bool used = false;
    for (const std::string& output : node.outputs) {
      if (!output.empty() && needed[static_cast<std::size_t>(id_of(output))]) used = true;
    }
    if (!used) continue;
    live[static_cast<std::size_t>(*it)] = true;
    for (const std::string& input : node.inputs) {
      if (!input.empty()) needed[static_cast<std::size_t>(id_of(input))] = true;
    }
  }
  for (std::int32_t index : graph.order) {
    if (!live[static_cast<std::size_t>(index)]) continue;
    const IrNode& node = graph.nodes[static_cast<std::size_t>(index)];
    CompiledNode compiled_node{&node, NodeInfo(node, node.opset, options.mode),
                               std::move(kernels[static_cast<std::size_t>(index)]), {}, {}, {}, nullptr, nullptr};
    compiled_node.looked_up_kernel = compiled_node.kernel.get();
    if (const OpKernel* looked_up = compiled_node.looked_up_kernel) compiled_node.looked_up_class = &typeid(*looked_up);
    for (const std::string& input : node.inputs) compiled_node.inputs.push_back(id_of(input));
    for (const std::string& output : node.outputs) compiled_node.outputs.push_back(id_of(output));
    compiled->nodes.push_back(std::move(compiled_node));
  }
  // graph-runtime.md section 6: the graph passes run between operator lookup and the first plan.
  // spec/half-precision.md section 8.6: in a model with half values a fusion must keep every
  // rounding the adapter makes between the nodes it replaces; only the passes that do run.
  {
    PassGraph pass_graph(*compiled, graph, options, config);
    pass_graph.set_half_model(scan_half_precision(graph).half_values);
    run_graph_passes(pass_graph);
  }

  // spec/errors.md section 3.2: which values the caller's inputs reach, over the nodes as the
  // passes left them (in dependency order).
  compiled->from_caller.assign(compiled->value_names.size(), 0);
  for (int id : compiled->input_ids) compiled->from_caller[static_cast<std::size_t>(id)] = 1;
  for (CompiledNode& node : compiled->nodes) {
    node.input_from_caller.assign(node.inputs.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const int id = node.inputs[i];
      if (id >= 0 && compiled->from_caller[static_cast<std::size_t>(id)] != 0) node.input_from_caller[i] = 1;
      any = any || node.input_from_caller[i] != 0;
    }
    if (!any) continue;
    for (int id : node.outputs) {
      if (id >= 0) compiled->from_caller[static_cast<std::size_t>(id)] = 1;
    }
  }
  return compiled;
}

}  // namespace onemodel::opt
