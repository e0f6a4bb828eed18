// The string operators of the default domain (spec/ops/strings.md). Each row's factory lives in
// reference/ops/op_<name>.cpp. Cast, CastLike and Equal serve STRING in their own families' rows.
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_regex_full_match(const NodeInfo&);
std::unique_ptr<OpKernel> make_string_concat(const NodeInfo&);
std::unique_ptr<OpKernel> make_string_normalizer(const NodeInfo&);
std::unique_ptr<OpKernel> make_string_split(const NodeInfo&);
std::unique_ptr<OpKernel> make_tf_idf_vectorizer(const NodeInfo&);

std::span<const OpDef> string_ops() {
  static const std::vector<OpDef> rows = {
      {"", "RegexFullMatch", 20, 27, make_regex_full_match, "String"},
      {"", "StringConcat", 20, 27, make_string_concat, "String"},
      {"", "StringNormalizer", 10, 27, make_string_normalizer, "String"},
      {"", "StringSplit", 20, 27, make_string_split, "String"},
      {"", "TfIdfVectorizer", 9, 27, make_tf_idf_vectorizer, "I32 I64 String"},
  };
  return rows;
}

}  // namespace onemodel
