// Sessions: load a model once, run it many times with named tensors (spec/session.md, from
// graph-runtime.md sections 1 and 4 and the cookbook pages). Both engines serve this interface.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor.hpp"
#include "onemodel/value.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

enum class ExecutionMode { Fast, Exact };
enum class EngineKind { Optimized, Reference };
enum class OptimizationLevel { None, Basic, All };
enum class WeightStorage { Original, Binary16, BFloat16 };

// The memory limit a session has unless told otherwise: 8 GiB (spec/session.md section 7).
inline constexpr std::int64_t kDefaultMemoryLimitBytes = std::int64_t{8} << 30;

struct SessionOptions {
  ExecutionMode mode = ExecutionMode::Fast;
  EngineKind engine = EngineKind::Optimized;
  int intra_op_threads = 0;  // 0: one per logical core, at most 256; changes speed only
  OptimizationLevel optimization_level = OptimizationLevel::All;
  WeightStorage weight_storage = WeightStorage::Original;
  int max_cached_plans = 16;
  // Bytes one run may hold at once in what it allocates: the plan's intermediate values, values
  // shaped while running, scratch, and the outputs it allocates. A run that would pass it is
  // refused with SessionError(ResourceExhausted) before allocating (spec/session.md section 7).
  std::int64_t memory_limit_bytes = kDefaultMemoryLimitBytes;
  // Iterations one Loop or Scan node may run in one call (spec/values.md section 5): a trip count
  // or a condition that would pass it is refused with SessionError(ResourceExhausted) naming the
  // node, before the iteration past the limit runs. Bounds a loop that never ends.
  std::int64_t max_loop_iterations = std::int64_t{1} << 24;
};

// Stops runs from another thread (spec/session.md section 8). Share one token between the thread
// that runs and the one that cancels; cancel() is sticky until reset(). Thread-safe.
class RunProfile;  // onemodel/run_profile.hpp

class CancelToken {
 public:
  void cancel() noexcept { cancelled_.store(true, std::memory_order_release); }
  void reset() noexcept { cancelled_.store(false, std::memory_order_release); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

// What one run may be stopped by (spec/session.md section 8): a run whose token is cancelled, or
// whose deadline has passed, ends with SessionError(Cancelled) at the next check (before every
// node, after the last one, and between the chunks of the optimized engine's kernels).
struct RunOptions {
  const CancelToken* cancel = nullptr;  // not owned; must outlive the run
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // When set, the run records each node's time into it (onemodel/run_profile.hpp; issue 15).
  // Not owned; one run at a time per profile. Results are the same with and without it.
  RunProfile* profile = nullptr;
  // The key of the random operators' draws for nodes without a `seed` attribute
  // (spec/ops/random.md section 2): the same value gives the same draws; change it between runs
  // for new ones. Nodes with a seed ignore it.
  std::uint64_t random_seed = 0;
};

// Sees each output of a run in place: `index` into the output names, and the result, which is
// valid only until the call returns (copy it to keep it).
using OutputVisitor = std::function<void(std::size_t index, const Tensor& result)>;

enum class ValueKind { Tensor, Sequence, Optional, Other };

// A graph input or output as the model declares it. For a sequence, and for an optional, the
// element type and shape are those of the tensors it holds (spec/values.md section 4).
struct TensorInfo {
  std::string name;
  ValueKind kind = ValueKind::Tensor;
  ValueKind optional_of = ValueKind::Tensor;  // Optional: what it holds (Tensor or Sequence)
  std::int32_t element_type = 0;  // ONNX code; 0 when undeclared
  bool has_rank = false;
  std::vector<IrDim> dims;        // fixed extents, symbolic names, unknowns
};

class SessionImpl;

class Session {
 public:
  // Loads an ONNX or OneModel file (told apart by the first eight bytes). Throws ModelError for
  // the file, SessionError for what the session cannot serve (every missing operator at once).
  static Session load(const std::filesystem::path& path, const SessionOptions& options = {});
  static Session load_bytes(const ByteView& bytes, const std::string& name, const SessionOptions& options = {});
  static Session create(IrModel model, const SessionOptions& options = {});

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  const SessionOptions& options() const;
  // The kernels chosen from the hardware: "Avx2", "Portable128", "Scalar", ... ("Reference" for
  // the reference engine).
  std::string kernel_path() const;

  // Every model input once, by name, in any order. outputs[i] receives output_names[i]: an
  // undefined tensor is replaced by a new one; a defined one must have the right type and shape
  // and is overwritten. Inputs are never modified or kept. Thread-safe.
  void run(std::span<const std::string> input_names, std::span<const Tensor> inputs,
           std::span<const std::string> output_names, std::span<Tensor> outputs,
           const RunOptions& run_options = {}) const;
  // Convenience: all outputs, in model order.
  std::vector<Tensor> run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                          const RunOptions& run_options = {}) const;
  // As run(), but each output is handed to `visit` where it lies, without a copy, once every node
  // has run (spec/session.md section 4): a caller that only reads the outputs (a hash, a file)
  // needs no memory for them.
  void run_visit(std::span<const std::string> input_names, std::span<const Tensor> inputs,
                 std::span<const std::string> output_names, const OutputVisitor& visit,
                 const RunOptions& run_options = {}) const;

  // The same with values (spec/values.md): what a model declares as a sequence or an optional is
  // given and returned as one; tensors as in run(). outputs[i] receives output_names[i]; a tensor
  // output given as a defined tensor is overwritten as in run(), every other slot is replaced.
  void run_values(std::span<const std::string> input_names, std::span<const Value> inputs,
                  std::span<const std::string> output_names, std::span<Value> outputs,
                  const RunOptions& run_options = {}) const;
  // Convenience: all outputs, in model order.
  std::vector<Value> run_values(const std::vector<std::pair<std::string, Value>>& inputs,
                                const RunOptions& run_options = {}) const;

  // The span form for one-input, one-output float models; returns the output's shape.
  std::vector<std::int64_t> run_span(std::span<const float> input, std::span<const std::int64_t> shape,
                                     std::span<float> output) const;

  // Later runs throw SessionError(Disposed); runs in progress finish.
  void dispose();

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

 private:
  explicit Session(std::shared_ptr<SessionImpl> impl);
  std::shared_ptr<SessionImpl> impl_;
};

// The happy path: load a file, run with a flat array, get a flat array back.
class Model {
 public:
  static Model load(const std::filesystem::path& path, const SessionOptions& options = {});

  // The model's single input from `values`; `shape` defaults to the declared shape with the
  // non-fixed dimensions inferred: for float and int32 values the first free dimension takes what
  // is left, for int64 token ids the last one does (ids for [batch, sequence] are one sequence
  // [1, N]; spec/session.md section 6). Text encoders: the token ids fill `input_ids`, an attention
  // mask of ones and segment ids of zeros are supplied when the model has those inputs.
  std::vector<float> run(std::span<const float> values,
                         std::optional<std::vector<std::int64_t>> shape = std::nullopt) const;
  std::vector<float> run(std::span<const std::int64_t> token_ids,
                         std::optional<std::vector<std::int64_t>> shape = std::nullopt) const;
  std::vector<float> run(std::span<const std::int32_t> values,
                         std::optional<std::vector<std::int64_t>> shape = std::nullopt) const;

  const Session& session() const { return session_; }

 private:
  explicit Model(Session session) : session_(std::move(session)) {}
  Session session_;
};

}  // namespace onemodel

#pragma GCC visibility pop
