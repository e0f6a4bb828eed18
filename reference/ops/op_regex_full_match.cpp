// RegexFullMatch (opset 20): true where the whole element matches `pattern`, read as RE2 syntax
// (spec/ops/strings.md section 6). The library accepts a stated subset of RE2 (re2_subset.hpp)
// and refuses the rest at session creation: InvalidModel for what is not RE2, Unsupported for RE2
// it does not serve. Matching is by bytes on a Thompson automaton (no backtracking); a pattern
// that can match a byte >= 0x80 ('.', negated classes, \D \S \W) is refused such input bytes at run
// time (Unsupported), since RE2 would match UTF-8 code points there.
#include <string>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "reference/ops/re2_subset.hpp"

namespace onemodel {
namespace {

bool has_non_ascii(const std::string& s) noexcept {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

class RegexFullMatch final : public OpKernel {
 public:
  explicit RegexFullMatch(re2s::Program program) : program_(std::move(program)) { string_elements = true; }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::String});
    context.set_output(0, DType::Bool, context.input_shape(0));
  }
  void run(RunContext& context) const override {
    const std::vector<std::string> x = context.input(0).to_vector<std::string>();
    std::span<std::uint8_t> y = context.output(0).mutable_data<std::uint8_t>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (program_.wide && has_non_ascii(x[i])) {
        throw SessionError(SessionErrorKind::Unsupported,
                           "RegexFullMatch: element " + std::to_string(i) +
                               " holds a byte >= 0x80 and the pattern can match any character there ('.', a negated "
                               "class, \\D, \\S or \\W): code-point matching is not supported",
                           context.node().name());
      }
      y[i] = re2s::full_match(program_, x[i]) ? 1 : 0;
    }
  }

 private:
  re2s::Program program_;
};

}  // namespace

std::unique_ptr<OpKernel> make_regex_full_match(const NodeInfo& node) {
  if (!node.has("pattern")) node.fail_invalid("the attribute 'pattern' is required");
  const std::string pattern = node.get_string("pattern", "");
  re2s::Program program;
  re2s::PatternError error;
  if (!re2s::compile(pattern, program, error)) {
    if (error.invalid) node.fail_invalid("pattern is not valid RE2: " + error.message);
    node.fail_unsupported("pattern: " + error.message);
  }
  return std::make_unique<RegexFullMatch>(std::move(program));
}

}  // namespace onemodel
