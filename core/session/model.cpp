// Model: the happy path over Session (spec/session.md section 6, from getting-started.md and
// reference-models.md): one input in, one float output back, shapes from the model.
#include <algorithm>

#include "onemodel/session.hpp"

namespace onemodel {
namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw SessionError(SessionErrorKind::InvalidInput, message);
}

// Which non-fixed dimension takes the value count (spec/session.md section 6).
enum class FreeDim {
  First,  // values: the batch, by convention ([batch, 4] and four values is one row)
  Last,   // token ids: the sequence (reference-models.md: ids declared [batch, sequence] with no
          // shape given are one sequence, [1, N], not N one-token sequences)
};

// The declared shape with its non-fixed dimensions inferred from the value count: every unknown
// or symbolic dimension but one is 1; the remaining one (`which`) takes what is left.
std::vector<std::int64_t> infer_shape(const TensorInfo& info, std::size_t count, FreeDim which) {
  if (!info.has_rank) return {static_cast<std::int64_t>(count)};
  std::vector<std::int64_t> shape;
  std::int64_t fixed = 1;
  for (const IrDim& dim : info.dims) {
    if (dim.kind == IrDim::Kind::Value) {
      // Declared extents come from the file: keep the product of the fixed ones from overflowing.
      const std::int64_t extent = std::max<std::int64_t>(dim.value, 1);
      if (fixed > (std::int64_t{1} << 62) / extent) invalid("input '" + info.name + "': declared shape too large");
      shape.push_back(dim.value);
      fixed *= extent;
    } else {
      shape.push_back(-1);
    }
  }
  bool placed = false;
  auto place = [&](std::int64_t& extent) {
    if (extent != -1) return;
    if (!placed) {
      if (static_cast<std::int64_t>(count) % fixed != 0) {
        invalid("input '" + info.name + "': " + std::to_string(count) +
                " values do not fill whole rows of " + std::to_string(fixed));
      }
      extent = static_cast<std::int64_t>(count) / fixed;
      placed = true;
    } else {
      extent = 1;
    }
  };
  if (which == FreeDim::First) {
    for (auto it = shape.begin(); it != shape.end(); ++it) place(*it);
  } else {
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) place(*it);
  }
  return shape;
}

template <class T>
std::vector<float> run_single(const Session& session, DType type, std::span<const T> values,
                              const std::optional<std::vector<std::int64_t>>& shape, FreeDim free_dim) {
  const auto& inputs = session.inputs();
  const auto& outputs = session.outputs();
  if (outputs.size() != 1) invalid("Model::run needs a model with one output; use Session for several");
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  std::size_t main_input = inputs.size();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == "input_ids" || inputs.size() == 1) main_input = i;
  }
  if (main_input == inputs.size()) invalid("Model::run needs a model with one input; use Session for several");
  const std::vector<std::int64_t> dims = shape ? *shape : infer_shape(inputs[main_input], values.size(), free_dim);
  const Shape main_shape{std::span<const std::int64_t>(dims)};
  if (main_shape.element_count() != static_cast<std::int64_t>(values.size())) {
    invalid("input '" + inputs[main_input].name + "': shape " + main_shape.to_string() + " holds " +
            std::to_string(main_shape.element_count()) + " values, " + std::to_string(values.size()) + " given");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(inputs[i].name);
    if (i == main_input) {
      tensors.push_back(Tensor::from_values<T>(type, main_shape, values));
      continue;
    }
    // spec/session.md section 6: text encoders get an attention mask of ones and segment ids of
    // zeros, shaped like the token ids.
    const auto element = inputs[i].element_type == 0 ? static_cast<std::int32_t>(type) : inputs[i].element_type;
    if (inputs[i].name == "attention_mask" && element == static_cast<std::int32_t>(DType::I64)) {
      std::vector<std::int64_t> ones(values.size(), 1);
      tensors.push_back(Tensor::from_values<std::int64_t>(DType::I64, main_shape, ones));
    } else if (inputs[i].name == "token_type_ids" && element == static_cast<std::int32_t>(DType::I64)) {
      tensors.push_back(Tensor::zeros(DType::I64, main_shape));
    } else {
      invalid("Model::run cannot supply input '" + inputs[i].name + "'; use Session");
    }
  }
  std::vector<std::string> output_names{outputs[0].name};
  std::vector<Tensor> results(1);
  session.run(names, tensors, output_names, results);
  if (results[0].dtype() != DType::F32) invalid("Model::run returns float outputs only; use Session");
  return results[0].to_vector<float>();
}

}  // namespace

Model Model::load(const std::filesystem::path& path, const SessionOptions& options) {
  return Model(Session::load(path, options));
}

std::vector<float> Model::run(std::span<const float> values, std::optional<std::vector<std::int64_t>> shape) const {
  return run_single<float>(session_, DType::F32, values, shape, FreeDim::First);
}

std::vector<float> Model::run(std::span<const std::int64_t> token_ids,
                              std::optional<std::vector<std::int64_t>> shape) const {
  return run_single<std::int64_t>(session_, DType::I64, token_ids, shape, FreeDim::Last);
}

std::vector<float> Model::run(std::span<const std::int32_t> values,
                              std::optional<std::vector<std::int64_t>> shape) const {
  return run_single<std::int32_t>(session_, DType::I32, values, shape, FreeDim::First);
}

std::vector<std::int64_t> Session::run_span(std::span<const float> input, std::span<const std::int64_t> shape,
                                            std::span<float> output) const {
  const auto& ins = inputs();
  const auto& outs = outputs();
  if (ins.size() != 1 || outs.size() != 1) {
    throw SessionError(SessionErrorKind::InvalidInput, "the span form needs a model with one input and one output");
  }
  const Shape input_shape{shape};
  if (input_shape.element_count() != static_cast<std::int64_t>(input.size())) {
    throw SessionError(SessionErrorKind::InvalidInput, "shape " + input_shape.to_string() + " does not match " +
                                                           std::to_string(input.size()) + " input values");
  }
  std::vector<std::string> in_names{ins[0].name};
  std::vector<Tensor> in_tensors{Tensor::from_values<float>(DType::F32, input_shape, input)};
  std::vector<std::string> out_names{outs[0].name};
  std::vector<Tensor> results(1);
  run(in_names, in_tensors, out_names, results);
  if (results[0].dtype() != DType::F32) {
    throw SessionError(SessionErrorKind::InvalidInput, "the span form needs a float output");
  }
  if (results[0].element_count() > static_cast<std::int64_t>(output.size())) {
    throw SessionError(SessionErrorKind::InvalidInput,
                       "the output buffer holds " + std::to_string(output.size()) + " values, the result has " +
                           std::to_string(results[0].element_count()));
  }
  results[0].copy_to(std::as_writable_bytes(output.first(static_cast<std::size_t>(results[0].element_count()))));
  std::vector<std::int64_t> dims(results[0].shape().extents().begin(), results[0].shape().extents().end());
  return dims;
}

}  // namespace onemodel
