// TfIdfVectorizer (opset 9): counts of the pool's n-grams in each row of a [C] or [N, C] input
// (int32, int64 or STRING), weighted by mode (spec/ops/strings.md section 7).
//
// For each n in [min_gram_length, max_gram_length] and each skip s in [0, max_skip_count], the
// n-gram starting at position i is x[i], x[i + (s+1)], ..., x[i + (n-1)(s+1)], when inside the row.
// A 1-gram does not depend on the skip and is counted once per position. An n-gram found in the
// pool adds 1 to output coordinate ngram_indexes[k] (k: its place among the pool's n-grams, 1-grams
// first). Then TF keeps the counts, IDF gives min(count, 1) * weight, TFIDF count * weight
// (weights default to 1). Counts are sums of 1.0f (exact up to 2^24), each weighted by one
// product: exact.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"

namespace onemodel {
namespace {

enum class Weighting { TF, IDF, TFIDF };

// One element as part of an n-gram key: int64 as 8 bytes, a string as its 8-byte length then its
// bytes (a prefix code, so different n-grams never share a key).
void append_int(std::string& key, std::int64_t v) {
  char bytes[8];
  std::memcpy(bytes, &v, 8);
  key.append(bytes, 8);
}
void append_string(std::string& key, const std::string& s) {
  append_int(key, static_cast<std::int64_t>(s.size()));
  key += s;
}

class TfIdfVectorizer final : public OpKernel {
 public:
  TfIdfVectorizer(bool strings, std::unordered_map<std::string, std::int64_t> pool, std::int64_t width,
                  std::vector<float> weights, Weighting weighting, std::int64_t min_n, std::int64_t max_n,
                  std::int64_t max_skip)
      : strings_(strings),
        pool_(std::move(pool)),
        width_(width),
        weights_(std::move(weights)),
        weighting_(weighting),
        min_n_(min_n),
        max_n_(max_n),
        max_skip_(max_skip) {
    string_elements = strings;
  }
  void infer(InferContext& context) const override {
    if (strings_) context.require_type(0, {DType::String});
    else context.require_type(0, {DType::I32, DType::I64});
    const Shape& x = context.input_shape(0);
    if (x.rank() == 1) {
      context.set_output(0, DType::F32, Shape{width_});
    } else if (x.rank() == 2) {
      context.set_output(0, DType::F32, Shape{x[0], width_});
    } else {
      context.node().fail_invalid("input must be [C] or [N, C], it is " + x.to_string());
    }
  }
  void run(RunContext& context) const override {
    const Tensor& x = context.input(0);
    const std::int64_t rows = x.rank() == 2 ? x.shape()[0] : 1;
    const std::int64_t columns = x.rank() == 2 ? x.shape()[1] : x.shape()[0];
    // Every element as its key piece, row-major.
    std::vector<std::string> pieces(static_cast<std::size_t>(x.element_count()));
    if (strings_) {
      const std::vector<std::string> v = x.to_vector<std::string>();
      for (std::size_t i = 0; i < v.size(); ++i) append_string(pieces[i], v[i]);
    } else if (x.dtype() == DType::I32) {
      const std::vector<std::int32_t> v = x.to_vector<std::int32_t>();
      for (std::size_t i = 0; i < v.size(); ++i) append_int(pieces[i], v[i]);
    } else {
      const std::vector<std::int64_t> v = x.to_vector<std::int64_t>();
      for (std::size_t i = 0; i < v.size(); ++i) append_int(pieces[i], v[i]);
    }
    std::span<float> y = context.output(0).mutable_data<float>();
    std::fill(y.begin(), y.end(), 0.0f);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(width_));
    std::string key;
    for (std::int64_t r = 0; r < rows; ++r) {
      std::fill(counts.begin(), counts.end(), 0);
      const std::string* row = pieces.data() + r * columns;
      for (std::int64_t n = min_n_; n <= max_n_; ++n) {
        // A skip of a row's length or more leaves no n-gram of n >= 2 inside it.
        const std::int64_t last_skip = n == 1 ? 0 : std::min(max_skip_, columns);
        for (std::int64_t s = 0; s <= last_skip; ++s) {
          const std::int64_t step = s + 1;
          // The last element of the n-gram at i is i + (n-1)*step, inside the row.
          for (std::int64_t i = 0; i + (n - 1) * step < columns; ++i) {
            key.clear();
            for (std::int64_t k = 0; k < n; ++k) key += row[i + k * step];
            const auto it = pool_.find(key);
            if (it != pool_.end()) ++counts[static_cast<std::size_t>(it->second)];
          }
        }
      }
      float* out = y.data() + r * width_;
      for (std::size_t c = 0; c < counts.size(); ++c) {
        const float count = static_cast<float>(counts[c]);
        switch (weighting_) {
          case Weighting::TF: out[c] = count; break;
          case Weighting::IDF: out[c] = counts[c] > 0 ? weights_[c] : 0.0f; break;
          case Weighting::TFIDF: out[c] = count * weights_[c]; break;
        }
      }
    }
  }

 private:
  bool strings_;
  std::unordered_map<std::string, std::int64_t> pool_;  // n-gram key -> output coordinate
  std::int64_t width_;                                  // max(ngram_indexes) + 1
  std::vector<float> weights_;                          // by output coordinate
  Weighting weighting_;
  std::int64_t min_n_;
  std::int64_t max_n_;
  std::int64_t max_skip_;
};

}  // namespace

std::unique_ptr<OpKernel> make_tf_idf_vectorizer(const NodeInfo& node) {
  for (const char* name : {"mode", "ngram_counts", "ngram_indexes"}) {
    if (!node.has(name)) node.fail_invalid("the attribute '" + std::string(name) + "' is required");
  }
  const std::string mode = node.get_string("mode", "");
  Weighting weighting = Weighting::TF;
  if (mode == "IDF") weighting = Weighting::IDF;
  else if (mode == "TFIDF") weighting = Weighting::TFIDF;
  else if (mode != "TF") node.fail_invalid("mode '" + mode + "' is not TF, IDF or TFIDF");
  const std::int64_t min_n = node.required_int("min_gram_length");
  const std::int64_t max_n = node.required_int("max_gram_length");
  const std::int64_t max_skip = node.required_int("max_skip_count");
  if (min_n < 1 || max_n < min_n) node.fail_invalid("gram lengths must satisfy 1 <= min_gram_length <= max_gram_length");
  if (max_skip < 0) node.fail_invalid("max_skip_count must not be negative");
  const bool strings = node.has("pool_strings");
  if (strings == node.has("pool_int64s")) node.fail_invalid("exactly one of pool_strings and pool_int64s is required");
  const std::vector<std::string> pool_strings = node.get_strings("pool_strings", {});
  const std::vector<std::int64_t> pool_ints = node.get_ints("pool_int64s", {});
  const std::size_t pool_size = strings ? pool_strings.size() : pool_ints.size();
  const std::vector<std::int64_t> counts = node.get_ints("ngram_counts", {});
  const std::vector<std::int64_t> indexes = node.get_ints("ngram_indexes", {});
  // ngram_counts[k]: where the (k+1)-grams start in the pool; non-decreasing, inside the pool, and
  // each stretch a whole number of n-grams.
  std::unordered_map<std::string, std::int64_t> pool;
  std::size_t gram = 0;  // the n-gram's place, for ngram_indexes
  std::int64_t width = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::int64_t begin = counts[k];
    const std::int64_t end = k + 1 < counts.size() ? counts[k + 1] : static_cast<std::int64_t>(pool_size);
    const auto n = static_cast<std::int64_t>(k + 1);
    if (begin < 0 || end < begin || end > static_cast<std::int64_t>(pool_size) || (end - begin) % n != 0) {
      node.fail_invalid("ngram_counts do not cut the pool into whole n-grams");
    }
    for (std::int64_t at = begin; at < end; at += n) {
      if (gram >= indexes.size()) node.fail_invalid("fewer ngram_indexes than n-grams in the pool");
      const std::int64_t coordinate = indexes[gram++];
      if (coordinate < 0 || coordinate >= (std::int64_t{1} << 28)) {
        node.fail_invalid("ngram_indexes value " + std::to_string(coordinate) + " is negative or too large");
      }
      width = std::max(width, coordinate + 1);
      std::string key;
      for (std::int64_t j = 0; j < n; ++j) {
        const auto p = static_cast<std::size_t>(at + j);
        if (strings) append_string(key, pool_strings[p]);
        else append_int(key, pool_ints[p]);
      }
      pool.insert_or_assign(std::move(key), coordinate);
    }
  }
  if (counts.empty() && pool_size != 0) node.fail_invalid("ngram_counts is empty but the pool is not");
  if (gram != indexes.size()) node.fail_invalid("more ngram_indexes than n-grams in the pool");
  // Weights by pool n-gram, moved to output coordinates (the i-th weight scales the i-th n-gram).
  const std::vector<float> given = node.get_floats("weights", {});
  if (node.has("weights") && given.size() != indexes.size()) {
    node.fail_invalid("weights has " + std::to_string(given.size()) + " entries for " +
                      std::to_string(indexes.size()) + " n-grams");
  }
  std::vector<float> weights(static_cast<std::size_t>(width), 1.0f);
  if (node.has("weights")) {
    for (std::size_t g = 0; g < indexes.size(); ++g) weights[static_cast<std::size_t>(indexes[g])] = given[g];
  }
  // No pool n-gram is longer than ngram_counts.size(): longer ones are never found (and the loops
  // stay far from overflow).
  const std::int64_t longest = std::min(max_n, static_cast<std::int64_t>(counts.size()));
  return std::make_unique<TfIdfVectorizer>(strings, std::move(pool), width, std::move(weights), weighting, min_n,
                                           longest, max_skip);
}

}  // namespace onemodel
