// StringNormalizer (opset 10): stop words removed from a [C] or [1, C] STRING tensor, then the
// survivors lower-cased, upper-cased or left alone (spec/ops/strings.md section 5). If nothing
// survives, the output is one empty string, shape [1] or [1, 1].
//
// Case rules are ASCII: 'A'..'Z' and 'a'..'z' change, nothing else does. A string holding a byte
// >= 0x80 is refused (Unsupported) whenever case matters (a case change, or case-insensitive stop
// words), rather than left unchanged where a locale-aware implementation would change it. The
// `locale` attribute may be empty or name an English or C locale, where ASCII case rules are the
// locale's; any other locale is refused.
#include <string>
#include <unordered_set>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

enum class CaseChange { None, Lower, Upper };

char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char ascii_upper(char c) noexcept { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string lowered(std::string s) {
  for (char& c : s) c = ascii_lower(c);
  return s;
}

bool has_non_ascii(const std::string& s) noexcept {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

class StringNormalizer final : public OpKernel {
 public:
  StringNormalizer(std::vector<std::string> stopwords, bool case_sensitive, CaseChange change)
      : case_sensitive_(case_sensitive), change_(change) {
    string_elements = true;
    outputs_data_dependent = true;
    for (std::string& word : stopwords) stopwords_.insert(case_sensitive ? std::move(word) : lowered(std::move(word)));
  }
  void infer(InferContext&) const override {}
  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    if (x.dtype() != DType::String) {
      context.node().fail_unsupported("input 0 has element type " + std::string(dtype_name(x.dtype())) +
                                      ", StringNormalizer takes String");
    }
    // ONNX: only [C] and [1, C] inputs.
    const bool two_axes = x.rank() == 2;
    if (!(x.rank() == 1 || (two_axes && x.shape()[0] == 1))) {
      context.node().fail_invalid("input shape " + x.shape().to_string() + " is neither [C] nor [1, C]");
    }
    const bool case_matters = change_ != CaseChange::None || !case_sensitive_;
    std::vector<std::string> kept;
    for (const std::string& s : x.to_vector<std::string>()) {
      if (case_matters && has_non_ascii(s)) {
        throw SessionError(SessionErrorKind::Unsupported,
                           "StringNormalizer: case rules beyond ASCII are not supported (an input string holds a byte >= 0x80)",
                           context.node().name());
      }
      if (!stopwords_.empty() && stopwords_.count(case_sensitive_ ? s : lowered(s)) != 0) continue;
      kept.push_back(s);
    }
    for (std::string& s : kept) {
      if (change_ == CaseChange::Lower) {
        for (char& c : s) c = ascii_lower(c);
      } else if (change_ == CaseChange::Upper) {
        for (char& c : s) c = ascii_upper(c);
      }
    }
    if (kept.empty()) kept.emplace_back();  // ONNX: one empty string
    const std::int64_t n = static_cast<std::int64_t>(kept.size());
    const Shape shape = two_axes ? Shape{1, n} : Shape{n};
    std::span<std::string> y = context.allocate_output(0, DType::String, shape).mutable_data<std::string>();
    for (std::size_t i = 0; i < kept.size(); ++i) y[i] = std::move(kept[i]);
  }

 private:
  std::unordered_set<std::string> stopwords_;
  bool case_sensitive_;
  CaseChange change_;
};

}  // namespace

std::unique_ptr<OpKernel> make_string_normalizer(const NodeInfo& node) {
  const std::string action = node.get_string("case_change_action", "NONE");
  CaseChange change = CaseChange::None;
  if (action == "LOWER") change = CaseChange::Lower;
  else if (action == "UPPER") change = CaseChange::Upper;
  else if (action != "NONE") node.fail_invalid("case_change_action '" + action + "' is not LOWER, UPPER or NONE");
  const std::string locale = node.get_string("locale", "");
  const bool english = locale.empty() || locale == "C" || locale == "POSIX" || locale.rfind("en_", 0) == 0 || locale == "en";
  if (!english) node.fail_unsupported("locale '" + locale + "': only ASCII case rules (English or C locales) are supported");
  std::vector<std::string> stopwords = node.get_strings("stopwords", {});
  const bool case_sensitive = node.get_int("is_case_sensitive", 0) != 0;
  // Stop words compared without case are compared in ASCII lower case: refuse the others here too.
  if (!case_sensitive) {
    for (const std::string& word : stopwords) {
      if (has_non_ascii(word)) node.fail_unsupported("case-insensitive stop word with a byte >= 0x80");
    }
  }
  return std::make_unique<StringNormalizer>(std::move(stopwords), case_sensitive, change);
}

}  // namespace onemodel
