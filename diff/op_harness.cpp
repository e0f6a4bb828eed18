#include "diff/op_harness.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

#include "core/graph/op_kernel.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::diff {
namespace {

IrNode make_node(const OpCase& c) {
  IrNode node;
  node.op_type = c.op;
  node.name = c.op + "_diff";
  node.opset = c.opset;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    node.inputs.push_back(c.inputs[i].defined() ? "in" + std::to_string(i) : std::string());
  }
  for (std::size_t i = 0; i < c.outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
  node.attributes = c.attributes;
  return node;
}

bool is_constant(const OpCase& c, std::size_t i) {
  if (c.constant.empty()) return i > 0;
  return i < c.constant.size() && c.constant[i];
}

// What an engine does with one node whose inputs are all known: infer with the values of the
// inputs it may see, prepare, allocate, run.
// `ran` (when given) is set when the kernel's run() was called (not when infer() stated every
// output as a constant).
std::vector<Tensor> run_kernel(const OpKernel& kernel, const NodeInfo& info, const OpCase& c, bool all_visible,
                               bool* ran = nullptr) {
  std::vector<InferInput> described(c.inputs.size());
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i].defined()) continue;
    const bool visible = all_visible || is_constant(c, i);
    described[i] = InferInput{true, c.inputs[i].dtype(), c.inputs[i].shape(), visible ? &c.inputs[i] : nullptr};
  }
  std::vector<Tensor> outputs(c.outputs);
  std::shared_ptr<const void> state;
  if (!kernel.outputs_data_dependent) {
    std::vector<InferOutput> stated(c.outputs);
    for (auto& s : stated) s.wanted = true;
    InferContext infer(info, described, stated);
    kernel.infer(infer);
    if (infer.needs_runtime_values() && !all_visible) {
      // The engine shapes such a node again with every value known.
      return run_kernel(kernel, info, c, true, ran);
    }
    bool all_constant = true;
    for (std::size_t i = 0; i < stated.size(); ++i) {
      if (stated[i].constant) {
        outputs[i] = stated[i].value;
      } else {
        all_constant = false;
        outputs[i] = Tensor::empty(stated[i].type, stated[i].shape);
      }
    }
    if (all_constant) return outputs;
    state = kernel.prepare(infer);
  }
  RunContext context(info, c.inputs, outputs, nullptr, state.get());
  if (ran != nullptr) *ran = true;
  kernel.run(context);
  return outputs;
}

}  // namespace

std::vector<Tensor> run_reference(const OpCase& c, ExecutionMode mode) {
  const IrNode node = make_node(c);
  const NodeInfo info(node, c.opset, mode);
  const OpDef* def = find_op("", c.op, c.opset);
  if (def == nullptr) throw SessionError(SessionErrorKind::UnsupportedOperator, c.op + " has no reference kernel");
  std::unique_ptr<OpKernel> kernel = def->factory(info);
  return run_kernel(*kernel, info, c, true);
}

std::vector<Tensor> run_optimized(const OpCase& c, ExecutionMode mode, opt::Isa isa, int threads,
                                  OptimizedRun* run) {
  const IrNode node = make_node(c);
  const NodeInfo info(node, c.opset, mode);
  opt::ThreadPool pool(threads, threads > 1 ? opt::ThreadPool::Sharing::Always : opt::ThreadPool::Sharing::ByEstimate);
  const opt::OptimizedConfig config{isa, &pool};
  std::unique_ptr<OpKernel> kernel;
  const opt::OptimizedOpDef* def = opt::find_optimized_op("", c.op, c.opset);
  if (def != nullptr) {
    kernel = def->factory(info, config);
  } else {
    const OpDef* reference = find_op("", c.op, c.opset);
    if (reference == nullptr) throw SessionError(SessionErrorKind::UnsupportedOperator, c.op + " has no kernel");
    kernel = reference->factory(info);
  }
  const std::uint64_t fallbacks_before = opt::OptimizedKernel::fallbacks_on_this_thread();
  bool ran = false;
  std::vector<Tensor> outputs = run_kernel(*kernel, info, c, false, &ran);
  if (run != nullptr) {
    run->override_ran = def != nullptr && ran && opt::OptimizedKernel::fallbacks_on_this_thread() == fallbacks_before;
    run->shared_calls = pool.shared_calls();
  }
  return outputs;
}

void RunTally::add(const OptimizedRun& run, int threads) {
  ++runs;
  if (run.override_ran) ++override_runs;
  if (threads > 1) {
    ++two_thread_runs;
    if (run.shared_calls > 0) ++shared_runs;
  }
}

void RunTally::add(const RunTally& other) {
  runs += other.runs;
  override_runs += other.override_runs;
  two_thread_runs += other.two_thread_runs;
  shared_runs += other.shared_runs;
}

void CaseTally::add(const RunTally& r) {
  ++cases;
  if (r.runs > 0 && r.override_runs == r.runs) ++override_cases;
  if (r.override_runs == 0) ++fallback_cases;
  if (r.shared_runs > 0) ++shared_cases;
}

std::string CaseTally::summary() const {
  return std::to_string(cases) + " cases: " + std::to_string(override_cases) + " ran the override, " +
         std::to_string(fallback_cases) + " fell back to the reference kernel, " + std::to_string(shared_cases) +
         " split between two threads";
}

bool has_override(const std::string& op, std::int64_t opset) {
  return opt::find_optimized_op("", op, opset) != nullptr;
}

std::string first_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return "output counts differ";
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string where = "output " + std::to_string(i) + ": ";
    if (a[i].defined() != b[i].defined()) return where + "defined in one engine only";
    if (!a[i].defined()) continue;
    if (a[i].dtype() != b[i].dtype()) return where + "element types differ";
    if (!(a[i].shape() == b[i].shape())) return where + a[i].shape().to_string() + " vs " + b[i].shape().to_string();
    if (a[i].dtype() == DType::String) {
      // Strings are compared as strings: their elements are not bytes (spec/tensors.md section 8).
      const std::vector<std::string> sa = a[i].to_vector<std::string>();
      const std::vector<std::string> sb = b[i].to_vector<std::string>();
      for (std::size_t e = 0; e < sa.size(); ++e) {
        if (sa[e] != sb[e]) return where + "element " + std::to_string(e) + " differs ('" + sa[e] + "' vs '" + sb[e] + "')";
      }
      continue;
    }
    const Tensor ca = a[i].contiguous();
    const Tensor cb = b[i].contiguous();
    const auto ba = tensor_bytes(ca);
    const auto bb = tensor_bytes(cb);
    const std::size_t width = dtype_size(a[i].dtype());
    for (std::size_t byte = 0; byte < ba.size(); ++byte) {
      if (ba[byte] != bb[byte]) {
        const std::size_t element = width == 0 ? byte : byte / width;
        std::string message = where + "element " + std::to_string(element) + " differs";
        if (a[i].dtype() == DType::F32) {
          float x, y;
          std::memcpy(&x, ba.data() + element * 4, 4);
          std::memcpy(&y, bb.data() + element * 4, 4);
          std::uint32_t bx, by;
          std::memcpy(&bx, &x, 4);
          std::memcpy(&by, &y, 4);
          char text[128];
          std::snprintf(text, sizeof text, " (%.9g 0x%08x vs %.9g 0x%08x)", x, bx, y, by);
          message += text;
        }
        return message;
      }
    }
  }
  return {};
}

std::string tensor_hash(const Tensor& t) {
  Sha256 hash;
  auto put64 = [&](std::int64_t v) {
    std::byte bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::byte>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xFF);
    hash.update(std::span<const std::byte>(bytes, 8));
  };
  put64(static_cast<std::int64_t>(t.dtype()));
  put64(t.shape().rank());
  for (int d = 0; d < t.shape().rank(); ++d) put64(t.shape()[d]);
  hash.update(canonical_bytes(t));
  return to_hex(hash.finish());
}

}  // namespace onemodel::diff
