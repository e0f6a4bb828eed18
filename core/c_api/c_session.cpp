// The C interface's sessions and runs (include/onemodel/onemodel.h, docs/api.md "C"). Every entry
// point checks its pointers and sizes before use and runs its body through guarded(): no C++
// exception reaches the caller.
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/c_api/c_errors.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/onemodel.h"
#include "onemodel/session.hpp"

#ifndef ONEMODEL_VERSION_TEXT
#error "ONEMODEL_VERSION_TEXT is set by CMakeLists.txt"
#endif

struct onemodel_session {
  onemodel::Session session;
  std::string kernel_path;
};

namespace onemodel::c_api {
namespace {

onemodel_status invalid(onemodel_error** error, const std::string& message) {
  return fail(error, ONEMODEL_INVALID_ARGUMENT, "InvalidArgument: " + message);
}

// The C options into SessionOptions; InvalidArgument text in `problem` for a value out of range.
bool to_options(const onemodel_options* in, SessionOptions& out, std::string& problem) {
  if (in == nullptr) return true;
  if (in->mode != ONEMODEL_MODE_FAST && in->mode != ONEMODEL_MODE_EXACT) {
    problem = "options.mode " + std::to_string(in->mode) + " is neither ONEMODEL_MODE_FAST nor ONEMODEL_MODE_EXACT";
    return false;
  }
  if (in->engine != ONEMODEL_ENGINE_OPTIMIZED && in->engine != ONEMODEL_ENGINE_REFERENCE) {
    problem = "options.engine " + std::to_string(in->engine) + " is not an onemodel_engine";
    return false;
  }
  if (in->threads < 0 || in->threads > 256) {
    problem = "options.threads " + std::to_string(in->threads) + " is outside 0 to 256";
    return false;
  }
  if (in->weights < ONEMODEL_WEIGHTS_ORIGINAL || in->weights > ONEMODEL_WEIGHTS_BFLOAT16) {
    problem = "options.weights " + std::to_string(in->weights) + " is not an onemodel_weights";
    return false;
  }
  if (in->memory_limit_bytes < 0) {
    problem = "options.memory_limit_bytes " + std::to_string(in->memory_limit_bytes) + " is negative";
    return false;
  }
  out.mode = in->mode == ONEMODEL_MODE_EXACT ? ExecutionMode::Exact : ExecutionMode::Fast;
  out.engine = in->engine == ONEMODEL_ENGINE_REFERENCE ? EngineKind::Reference : EngineKind::Optimized;
  out.intra_op_threads = in->threads;
  out.weight_storage = in->weights == ONEMODEL_WEIGHTS_BINARY16   ? WeightStorage::Binary16
                       : in->weights == ONEMODEL_WEIGHTS_BFLOAT16 ? WeightStorage::BFloat16
                                                                  : WeightStorage::Original;
  if (in->memory_limit_bytes > 0) out.memory_limit_bytes = in->memory_limit_bytes;
  return true;
}

onemodel_status made(onemodel::Session session, onemodel_session** out) {
  auto holder = std::make_unique<onemodel_session>(onemodel_session{std::move(session), std::string()});
  holder->kernel_path = holder->session.kernel_path();
  *out = holder.release();
  return ONEMODEL_OK;
}

void fill_info(const TensorInfo& from, onemodel_value_info* info) {
  info->name = from.name.c_str();
  info->is_tensor = from.kind == ValueKind::Tensor ? 1 : 0;
  info->element_type = from.element_type;
  info->rank = from.has_rank ? static_cast<std::int64_t>(from.dims.size()) : -1;
  for (std::size_t k = 0; k < ONEMODEL_MAX_RANK; ++k) {
    info->shape[k] = -1;
    info->dim_names[k] = nullptr;
    if (!from.has_rank || k >= from.dims.size()) continue;
    const IrDim& d = from.dims[k];
    if (d.kind == IrDim::Kind::Value) info->shape[k] = d.value;
    if (d.kind == IrDim::Kind::Param) info->dim_names[k] = d.param.c_str();
  }
}

onemodel_status value_info(const onemodel_session* session, std::size_t index, onemodel_value_info* info,
                           onemodel_error** error, bool input) {
  return guarded(error, [&]() -> onemodel_status {
    if (session == nullptr || info == nullptr) return invalid(error, "session and info must not be NULL");
    const std::vector<TensorInfo>& list = input ? session->session.inputs() : session->session.outputs();
    if (index >= list.size()) {
      return invalid(error, std::string(input ? "input" : "output") + " index " + std::to_string(index) +
                                " is not below the count " + std::to_string(list.size()));
    }
    fill_info(list[index], info);
    return ONEMODEL_OK;
  });
}

// One caller tensor as a library tensor (a copy), after checking every field.
onemodel_status to_tensor(const onemodel_tensor& in, std::size_t k, Tensor& out, onemodel_error** error) {
  const std::string where = "inputs[" + std::to_string(k) + "]";
  if (in.name == nullptr) return invalid(error, where + ".name is NULL");
  if (!dtype_is_stored(in.element_type)) {
    return invalid(error, where + " ('" + in.name + "'): element type " + std::to_string(in.element_type) +
                              " is not one the library stores");
  }
  // spec/tensors.md section 8: the C interface passes flat bytes; STRING tensors are refused.
  if (in.element_type == static_cast<std::int32_t>(DType::String)) {
    return fail(error, ONEMODEL_UNSUPPORTED,
                "Unsupported: " + where + " ('" + in.name + "'): STRING tensors are not supported by the C interface");
  }
  if (in.rank > ONEMODEL_MAX_RANK) {
    return invalid(error, where + " ('" + in.name + "'): rank " + std::to_string(in.rank) + " is above " +
                              std::to_string(ONEMODEL_MAX_RANK));
  }
  const DType type = static_cast<DType>(in.element_type);
  // spec/tensors.md section 2.2: a caller's byte could hold a value outside a 4- or 2-bit type,
  // which the kernels assume away; such inputs are refused (outputs come one element per byte).
  if (dtype_is_subbyte(type)) {
    return invalid(error, where + " ('" + in.name + "'): element type " + std::string(onnx_type_name(in.element_type)) +
                              " is a 4- or 2-bit type, which the C API does not take as input");
  }
  // The byte size the shape needs, every product checked.
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < in.rank; ++d) {
    const std::int64_t e = in.shape[d];
    if (e < 0) return invalid(error, where + " ('" + in.name + "'): extent " + std::to_string(e) + " is negative");
    if (e != 0 && count > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(e)) {
      return invalid(error, where + " ('" + in.name + "'): the element count overflows");
    }
    count *= static_cast<std::uint64_t>(e);
  }
  const std::uint64_t element = dtype_size(type);
  if (count > std::numeric_limits<std::uint64_t>::max() / element || count * element != in.byte_size) {
    return invalid(error, where + " ('" + in.name + "'): byte_size " + std::to_string(in.byte_size) +
                              " does not match the shape (" + std::to_string(count) + " elements of " +
                              std::to_string(element) + " bytes)");
  }
  if (in.byte_size != 0 && in.data == nullptr) return invalid(error, where + " ('" + in.name + "'): data is NULL");
  const Shape shape(std::span<const std::int64_t>(in.shape, in.rank));
  out = Tensor::from_bytes(type, shape,
                           std::span<const std::byte>(static_cast<const std::byte*>(in.data), in.byte_size));
  return ONEMODEL_OK;
}

// The run's result into the caller's output slot: into its buffer, or a malloc'ed copy.
onemodel_status deliver(const Tensor& result, onemodel_tensor& out, onemodel_error** error) {
  if (result.dtype() == DType::String) {
    return fail(error, ONEMODEL_UNSUPPORTED,
                "Unsupported: output '" + std::string(out.name) + "' is a STRING tensor, which the C interface does not return");
  }
  const std::span<const std::byte> bytes = tensor_bytes(result);
  out.element_type = static_cast<std::int32_t>(result.dtype());
  out.rank = static_cast<std::size_t>(result.shape().rank());
  for (std::size_t d = 0; d < ONEMODEL_MAX_RANK; ++d) {
    out.shape[d] = d < out.rank ? result.shape()[static_cast<int>(d)] : 0;
  }
  if (out.data != nullptr) {
    const std::size_t capacity = out.byte_size;
    out.byte_size = bytes.size();
    out.owned_by_library = 0;
    if (capacity < bytes.size()) {
      return fail(error, ONEMODEL_BUFFER_TOO_SMALL,
                  "BufferTooSmall: output '" + std::string(out.name) + "' needs " + std::to_string(bytes.size()) +
                      " bytes, the buffer holds " + std::to_string(capacity));
    }
    if (!bytes.empty()) std::memcpy(out.data, bytes.data(), bytes.size());
    return ONEMODEL_OK;
  }
  void* copy = std::malloc(bytes.empty() ? 1 : bytes.size());
  if (copy == nullptr) return fail(error, ONEMODEL_OUT_OF_MEMORY, "OutOfMemory: output '" + std::string(out.name) + "'");
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  out.data = copy;
  out.byte_size = bytes.size();
  out.owned_by_library = 1;
  return ONEMODEL_OK;
}

}  // namespace
}  // namespace onemodel::c_api

using onemodel::c_api::fail;
using onemodel::c_api::guarded;

extern "C" {

const char* onemodel_version(void) { return ONEMODEL_VERSION_TEXT; }

void onemodel_options_init(onemodel_options* options) {
  if (options == nullptr) return;
  const onemodel::SessionOptions defaults;
  options->mode = ONEMODEL_MODE_FAST;
  options->engine = ONEMODEL_ENGINE_OPTIMIZED;
  options->threads = defaults.intra_op_threads;
  options->weights = ONEMODEL_WEIGHTS_ORIGINAL;
  options->memory_limit_bytes = 0;
}

onemodel_status onemodel_session_create(const char* path, const onemodel_options* options, onemodel_session** session,
                                        onemodel_error** error) {
  return guarded(error, [&]() -> onemodel_status {
    if (session == nullptr) return onemodel::c_api::invalid(error, "session must not be NULL");
    *session = nullptr;
    if (path == nullptr) return onemodel::c_api::invalid(error, "path must not be NULL");
    onemodel::SessionOptions o;
    std::string problem;
    if (!onemodel::c_api::to_options(options, o, problem)) return onemodel::c_api::invalid(error, problem);
    return onemodel::c_api::made(onemodel::Session::load(path, o), session);
  });
}

onemodel_status onemodel_session_create_from_bytes(const void* bytes, size_t size, const char* name,
                                                   const onemodel_options* options, onemodel_session** session,
                                                   onemodel_error** error) {
  return guarded(error, [&]() -> onemodel_status {
    if (session == nullptr) return onemodel::c_api::invalid(error, "session must not be NULL");
    *session = nullptr;
    if (bytes == nullptr && size != 0) return onemodel::c_api::invalid(error, "bytes is NULL with a size above 0");
    onemodel::SessionOptions o;
    std::string problem;
    if (!onemodel::c_api::to_options(options, o, problem)) return onemodel::c_api::invalid(error, problem);
    // The library may keep views of the bytes (weights): it gets its own copy.
    auto owned = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(bytes),
                                                          static_cast<const std::byte*>(bytes) + size);
    const onemodel::ByteView view{owned->data(), owned->size(), owned};
    return onemodel::c_api::made(onemodel::Session::load_bytes(view, name == nullptr ? "<bytes>" : name, o), session);
  });
}

void onemodel_session_free(onemodel_session* session) { delete session; }

size_t onemodel_session_input_count(const onemodel_session* session) {
  return session == nullptr ? 0 : session->session.inputs().size();
}

size_t onemodel_session_output_count(const onemodel_session* session) {
  return session == nullptr ? 0 : session->session.outputs().size();
}

onemodel_status onemodel_session_input_info(const onemodel_session* session, size_t index, onemodel_value_info* info,
                                            onemodel_error** error) {
  return onemodel::c_api::value_info(session, index, info, error, true);
}

onemodel_status onemodel_session_output_info(const onemodel_session* session, size_t index, onemodel_value_info* info,
                                             onemodel_error** error) {
  return onemodel::c_api::value_info(session, index, info, error, false);
}

const char* onemodel_session_kernel_path(const onemodel_session* session) {
  return session == nullptr ? "" : session->kernel_path.c_str();
}

onemodel_status onemodel_session_run(const onemodel_session* session, const onemodel_tensor* inputs,
                                     size_t input_count, onemodel_tensor* outputs, size_t output_count,
                                     onemodel_error** error) {
  return guarded(error, [&]() -> onemodel_status {
    if (session == nullptr) return onemodel::c_api::invalid(error, "session must not be NULL");
    if (inputs == nullptr && input_count != 0) return onemodel::c_api::invalid(error, "inputs is NULL");
    if (outputs == nullptr && output_count != 0) return onemodel::c_api::invalid(error, "outputs is NULL");
    std::vector<std::string> input_names(input_count);
    std::vector<onemodel::Tensor> tensors(input_count);
    for (std::size_t k = 0; k < input_count; ++k) {
      const onemodel_status s = onemodel::c_api::to_tensor(inputs[k], k, tensors[k], error);
      if (s != ONEMODEL_OK) return s;
      input_names[k] = inputs[k].name;
    }
    std::vector<std::string> output_names(output_count);
    for (std::size_t k = 0; k < output_count; ++k) {
      if (outputs[k].name == nullptr) {
        return onemodel::c_api::invalid(error, "outputs[" + std::to_string(k) + "].name is NULL");
      }
      outputs[k].owned_by_library = 0;
      output_names[k] = outputs[k].name;
    }
    std::vector<onemodel::Tensor> results(output_count);
    session->session.run(input_names, tensors, output_names, results);
    for (std::size_t k = 0; k < output_count; ++k) {
      const onemodel_status s = onemodel::c_api::deliver(results[k], outputs[k], error);
      if (s == ONEMODEL_OK) continue;
      // Nothing half-done: what this call allocated is freed again.
      for (std::size_t j = 0; j < k; ++j) {
        if (outputs[j].owned_by_library != 0) {
          std::free(outputs[j].data);
          outputs[j].data = nullptr;
          outputs[j].owned_by_library = 0;
        }
      }
      return s;
    }
    return ONEMODEL_OK;
  });
}

void onemodel_free(void* data) { std::free(data); }

}  // extern "C"
