// StringSplit (opset 20): each element of a STRING tensor split into substrings
// (spec/ops/strings.md section 4). Output 0 has the input's shape plus one axis as long as the
// largest number of substrings, padded with empty strings; output 1 (int64, the input's shape)
// holds each element's number of substrings. The rules are those of Python's str.split, which
// ONNX's text follows: with a delimiter, consecutive delimiters delimit empty strings; without one
// (or with ""), runs of ASCII whitespace separate and leading and trailing whitespace gives
// nothing. `maxsplit` caps the splits; the rest of the string after the last split is the last
// substring (without its leading whitespace in the whitespace form).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"

namespace onemodel {
namespace {

// spec/ops/strings.md section 4: the whitespace of the whitespace form (ASCII only).
bool is_split_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `limit` < 0: no limit.
std::vector<std::string> split_on_delimiter(std::string_view s, std::string_view delimiter, std::int64_t limit) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  std::int64_t splits = 0;
  while (limit < 0 || splits < limit) {
    const std::size_t at = s.find(delimiter, start);
    if (at == std::string_view::npos) break;
    parts.emplace_back(s.substr(start, at - start));
    start = at + delimiter.size();
    ++splits;
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

std::vector<std::string> split_on_whitespace(std::string_view s, std::int64_t limit) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  std::int64_t splits = 0;
  while (true) {
    while (i < s.size() && is_split_space(s[i])) ++i;
    if (i == s.size()) break;
    if (limit >= 0 && splits == limit) {
      // The rest, leading whitespace removed, trailing kept (str.split with maxsplit).
      parts.emplace_back(s.substr(i));
      break;
    }
    std::size_t end = i;
    while (end < s.size() && !is_split_space(s[end])) ++end;
    parts.emplace_back(s.substr(i, end - i));
    i = end;
    ++splits;
  }
  return parts;
}

class StringSplit final : public OpKernel {
 public:
  StringSplit(std::string delimiter, std::int64_t maxsplit) : delimiter_(std::move(delimiter)), maxsplit_(maxsplit) {
    string_elements = true;
    outputs_data_dependent = true;
  }
  void infer(InferContext&) const override {}
  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::String) {
      context.node().fail_unsupported("input 0 has element type " + std::string(dtype_name(x.dtype())) +
                                      ", StringSplit takes String");
    }
    const std::vector<std::string> in = x.to_vector<std::string>();
    std::vector<std::vector<std::string>> parts(in.size());
    std::size_t widest = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      parts[i] = delimiter_.empty() ? split_on_whitespace(in[i], maxsplit_) : split_on_delimiter(in[i], delimiter_, maxsplit_);
      widest = std::max(widest, parts[i].size());
    }
    if (x.rank() >= kMaxRank) context.node().fail_unsupported("the output would have more than 8 axes");
    std::vector<std::int64_t> extents(x.shape().extents().begin(), x.shape().extents().end());
    extents.push_back(static_cast<std::int64_t>(widest));
    const Shape out_shape{std::span<const std::int64_t>(extents)};
    if (context.output_wanted(0)) {
      std::span<std::string> y = context.allocate_output(0, DType::String, out_shape).mutable_data<std::string>();
      for (std::size_t i = 0; i < parts.size(); ++i) {
        for (std::size_t k = 0; k < parts[i].size(); ++k) y[i * widest + k] = std::move(parts[i][k]);
      }
    }
    if (context.output_wanted(1)) {
      std::span<std::int64_t> counts = context.allocate_output(1, DType::I64, x.shape()).mutable_data<std::int64_t>();
      for (std::size_t i = 0; i < parts.size(); ++i) counts[i] = static_cast<std::int64_t>(parts[i].size());
    }
  }

 private:
  std::string delimiter_;
  std::int64_t maxsplit_;
};

}  // namespace

std::unique_ptr<OpKernel> make_string_split(const NodeInfo& node) {
  const std::int64_t maxsplit = node.has("maxsplit") ? node.get_int("maxsplit", 0) : -1;
  // spec/ops/strings.md section 4: a stated maxsplit is a count of splits, so not negative.
  if (node.has("maxsplit") && maxsplit < 0) node.fail_invalid("maxsplit must not be negative");
  return std::make_unique<StringSplit>(node.get_string("delimiter", ""), maxsplit);
}

}  // namespace onemodel
