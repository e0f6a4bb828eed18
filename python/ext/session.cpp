// onemodel._core.Session: the C++ Session behind onemodel.Session (python/src/onemodel/_session.py
// turns options, metadata and arrays into what this takes).
#include "session.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "onemodel/session.hpp"

namespace nb = nanobind;

namespace onemodel::python {
namespace {

struct PySession {
  Session session;
};

SessionOptions make_options(int mode, int engine, int threads, int weights, int optimization,
                            std::int64_t memory_limit, int max_cached_plans) {
  SessionOptions o;
  o.mode = static_cast<ExecutionMode>(mode);
  o.engine = static_cast<EngineKind>(engine);
  o.intra_op_threads = threads;
  o.weight_storage = static_cast<WeightStorage>(weights);
  o.optimization_level = static_cast<OptimizationLevel>(optimization);
  if (memory_limit > 0) o.memory_limit_bytes = memory_limit;
  o.max_cached_plans = max_cached_plans;
  return o;
}

const char* kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::Tensor: return "tensor";
    case ValueKind::Sequence: return "sequence";
    case ValueKind::Optional: return "optional";
    case ValueKind::Other: return "other";
  }
  return "other";
}

// (name, kind, element type, dims or None); a dim is an int, its symbolic name, or None.
nb::list describe(const std::vector<TensorInfo>& infos) {
  nb::list out;
  for (const TensorInfo& info : infos) {
    nb::object dims = nb::none();
    if (info.has_rank) {
      nb::list list;
      for (const IrDim& dim : info.dims) {
        if (dim.kind == IrDim::Kind::Value) {
          list.append(nb::int_(dim.value));
        } else if (dim.kind == IrDim::Kind::Param) {
          list.append(nb::str(dim.param.c_str(), dim.param.size()));
        } else {
          list.append(nb::none());
        }
      }
      dims = nb::tuple(list);
    }
    out.append(nb::make_tuple(info.name, kind_name(info.kind), info.element_type, dims));
  }
  return out;
}

// feeds: (name, element type, shape, address, byte size, array, copied by the caller) each.
// timeout: seconds from now after which the run stops with Cancelled; negative for none.
// random_seed: RunOptions::random_seed (spec/ops/random.md section 2).
nb::list run(const PySession& self, const nb::list& feeds, const std::vector<std::string>& output_names,
             double timeout, std::uint64_t random_seed) {
  RunOptions run_options;
  run_options.random_seed = random_seed;
  if (timeout >= 0) {
    // At most 30 days, so that now + timeout cannot overflow (as `onemodel run --deadline`).
    const double seconds = timeout < 30.0 * 24 * 3600 ? timeout : 30.0 * 24 * 3600;
    run_options.deadline = std::chrono::steady_clock::now() +
                           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(seconds));
  }
  std::vector<std::string> names;
  std::vector<Tensor> inputs;
  for (nb::handle feed : feeds) {
    const nb::tuple t = nb::cast<nb::tuple>(feed);
    InputArray array;
    array.element_type = nb::cast<std::int32_t>(t[1]);
    array.shape = nb::cast<std::vector<std::int64_t>>(t[2]);
    array.address = nb::cast<std::uintptr_t>(t[3]);
    array.byte_size = nb::cast<std::size_t>(t[4]);
    array.owner = nb::borrow(t[5]);
    array.copied_by_caller = nb::cast<bool>(t[6]);
    names.push_back(nb::cast<std::string>(t[0]));
    inputs.push_back(tensor_from_array(array));
  }
  std::vector<Tensor> outputs(output_names.size());
  {
    // The session is thread-safe (spec/session.md section 1): other Python threads run, and may
    // run this session, meanwhile. Only C++ objects are touched until the GIL is back; a borrowed
    // input's keep-alive takes the GIL itself if it is let go.
    nb::gil_scoped_release release;
    self.session.run(names, inputs, output_names, outputs, run_options);
  }
  nb::list out;
  for (const Tensor& t : outputs) out.append(array_from_tensor(t));
  return out;
}

}  // namespace

void bind_session(nb::module_& m) {
  nb::class_<PySession>(m, "Session")
      .def_static(
          "load",
          [](const std::string& path, int mode, int engine, int threads, int weights, int optimization,
             std::int64_t memory_limit, int max_cached_plans) {
            const SessionOptions o = make_options(mode, engine, threads, weights, optimization, memory_limit,
                                                  max_cached_plans);
            std::filesystem::path p(path);
            nb::gil_scoped_release release;
            return new PySession{Session::load(p, o)};
          },
          nb::rv_policy::take_ownership)
      .def_static(
          "load_bytes",
          [](const nb::bytes& data, const std::string& name, int mode, int engine, int threads, int weights,
             int optimization, std::int64_t memory_limit, int max_cached_plans) {
            const SessionOptions o = make_options(mode, engine, threads, weights, optimization, memory_limit,
                                                  max_cached_plans);
            // The session may keep views of the bytes (weights): they live in a copy it owns.
            auto copy = std::make_shared<std::vector<std::byte>>(
                reinterpret_cast<const std::byte*>(data.c_str()),
                reinterpret_cast<const std::byte*>(data.c_str()) + data.size());
            const ByteView view{copy->data(), copy->size(), copy};
            nb::gil_scoped_release release;
            return new PySession{Session::load_bytes(view, name, o)};
          },
          nb::rv_policy::take_ownership)
      .def("inputs", [](const PySession& s) { return describe(s.session.inputs()); })
      .def("outputs", [](const PySession& s) { return describe(s.session.outputs()); })
      .def("kernel_path", [](const PySession& s) { return s.session.kernel_path(); })
      .def("run", &run)
      .def("dispose", [](PySession& s) { s.session.dispose(); });

  m.def("input_counters", [] {
    return nb::make_tuple(input_counters().borrowed.load(), input_counters().copied.load());
  });
}

}  // namespace onemodel::python
