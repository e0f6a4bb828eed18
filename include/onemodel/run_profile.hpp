// Per-node timing of runs (issue 15; docs/command-line.md, profile). Give a RunProfile to
// RunOptions::profile and each run records, for every node of the model's main graph it executes,
// when the node started and how long it took (std::chrono::steady_clock), and which thread ran it.
// The nodes of a subgraph body (If, Loop, Scan) are not recorded apart: their time is the time of
// the node holding the body. A run without a profile reads no clock: the engines test one pointer
// per node.
//
// Use: run once or twice to warm up (the first run of a session builds its plan and describes the
// nodes), call clear_timings() and reserve(runs * nodes().size()), then run: the timed runs then
// allocate nothing for the profile. One run at a time per profile, and one session per profile
// (nodes are known by their address in the session); results are unchanged by profiling.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// What executes a node.
enum class NodeKernelKind : std::uint8_t {
  Reference,  // the reference kernel (reference engine, or an operator the optimized one does not override)
  Optimized,  // the optimized engine's override of the node's operator
  Fused,      // a kernel a graph pass made in place of one node or more (LinearOp, attention, ...)
};

// "reference", "optimized", "fused".
inline const char* to_string(NodeKernelKind kind) noexcept {
  switch (kind) {
    case NodeKernelKind::Optimized: return "optimized";
    case NodeKernelKind::Fused: return "fused";
    case NodeKernelKind::Reference: break;
  }
  return "reference";
}

struct ProfiledNode {
  std::string name;           // the node's name in the model ("" when it has none)
  std::string model_op_type;  // the operator of the model node it stands at ("Gemm", "MatMul", ...)
  // What runs: the operator, or for a fused node the fused kernel ("LinearOp", "AttentionFusedOp",
  // "MatMulIntegerToFloat", "Conv+activation", "Conv+BatchNormalization", "QLinearConv", ...).
  std::string op_type;
  NodeKernelKind kind = NodeKernelKind::Reference;
  // The instruction-set path the kernel runs on ("AVX-512", "AVX2+FMA", "Scalar", ...: the
  // session's path, optimized/frame/isa.hpp; a kernel family without code at that width runs its
  // widest narrower one), "reference" for a reference kernel, or "in place" for a Concat whose
  // inputs were written into its output and which runs no kernel (spec/optimized-engine.md
  // section 4 rule 5).
  std::string kernel_path;
};

struct NodeTiming {
  std::uint32_t node = 0;     // index into RunProfile::nodes()
  std::uint32_t run = 0;      // the run, counted from 0 since the last clear_timings()
  std::uint32_t thread = 0;   // the thread that ran the node: 0 the first one the profile saw, 1 the next, ...
  bool fell_back = false;     // an optimized override handed this call to its reference kernel
  std::int64_t start_ns = 0;  // from the profile's epoch
  std::int64_t duration_ns = 0;
};

class RunProfile {
 public:
  using Clock = std::chrono::steady_clock;

  RunProfile() : epoch_(Clock::now()) {}

  // Room for this many timings, so that runs within it allocate nothing for the profile.
  void reserve(std::size_t timings) { timings_.reserve(timings); }
  // Forgets the timings and the run count; the nodes, the thread numbers and the epoch stay.
  void clear_timings() noexcept {
    timings_.clear();
    runs_ = 0;
  }

  // Nodes in the order they first ran.
  const std::vector<ProfiledNode>& nodes() const noexcept { return nodes_; }
  // Every recorded node call, in the order they ended.
  const std::vector<NodeTiming>& timings() const noexcept { return timings_; }
  // Runs begun since the last clear_timings().
  std::uint32_t runs() const noexcept { return runs_; }
  Clock::time_point epoch() const noexcept { return epoch_; }

  // --- Called by the engines during a run ---
  // A run starts on the calling thread.
  void begin_run() {
    const std::thread::id self = std::this_thread::get_id();
    std::uint32_t k = 0;
    while (k < threads_.size() && threads_[k] != self) ++k;
    if (k == threads_.size()) threads_.push_back(self);
    thread_ = k;
    ++runs_;
  }
  // The index of the node known by `key` (its address in the session), described by `describe()`
  // (returning a ProfiledNode) the first time it is seen.
  template <class Describe>
  std::uint32_t node(const void* key, const Describe& describe) {
    const auto found = index_.find(key);
    if (found != index_.end()) return found->second;
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(describe());
    index_.emplace(key, index);
    return index;
  }
  void record(std::uint32_t node, Clock::time_point start, Clock::time_point end, bool fell_back) {
    NodeTiming timing;
    timing.node = node;
    timing.run = runs_ == 0 ? 0 : runs_ - 1;
    timing.thread = thread_;
    timing.fell_back = fell_back;
    timing.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(start - epoch_).count();
    timing.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    timings_.push_back(timing);
  }

 private:
  Clock::time_point epoch_;
  std::vector<ProfiledNode> nodes_;
  std::unordered_map<const void*, std::uint32_t> index_;
  std::vector<NodeTiming> timings_;
  std::vector<std::thread::id> threads_;
  std::uint32_t thread_ = 0;
  std::uint32_t runs_ = 0;
};

}  // namespace onemodel

#pragma GCC visibility pop
