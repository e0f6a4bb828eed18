// NonMaxSuppression (opsets 10 and 11): spec/ops/detection.md section 1. boxes [B, S, 4] and
// scores [B, C, S] float32; optional scalars max_output_boxes_per_class (int64, default 0),
// iou_threshold and score_threshold (float32). Per batch and class: the boxes whose score passes
// the threshold, by descending score (ties: lower box index first), each kept unless its IoU with
// a kept box exceeds iou_threshold, at most max_output_boxes_per_class kept. Output
// selected_indices [N, 3] int64 (batch, class, box). Comparisons and float32 +, -, *, / in a
// stated order: exact.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

struct Box {
  float y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

// Section 1: corners in either order (center_point_box = 0) or centre and size (1).
Box box_at(const float* b, bool center) {
  if (center) {
    const float half_w = b[2] / 2.0f, half_h = b[3] / 2.0f;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// True when the IoU of a and b exceeds the threshold; boxes or intersections of no area never do.
bool suppresses(const Box& a, const Box& b, float threshold) {
  const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
  const float area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
  if (!(area_a > 0.0f) || !(area_b > 0.0f)) return false;
  const float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (!(w > 0.0f) || !(h > 0.0f)) return false;
  const float intersection = w * h;
  const float union_area = area_a + area_b - intersection;
  if (!(union_area > 0.0f)) return false;
  return intersection / union_area > threshold;
}

// The node runs on the values of its inputs only when it runs (its output's shape depends on
// them), so a refused value or shape is the run's input: InvalidInput (spec/errors.md section 3.2).
[[noreturn]] void fail_value(const NodeInfo& node, const std::string& message) { shape_ops::fail_index(node, message); }

class NonMaxSuppression final : public OpKernel {
 public:
  explicit NonMaxSuppression(const NodeInfo& node) : center_(node.get_int("center_point_box", 0)) {
    if (center_ != 0 && center_ != 1) node.fail_invalid("center_point_box must be 0 or 1, got " + std::to_string(center_));
    outputs_data_dependent = true;
  }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor boxes = context.input(0).contiguous();
    const Tensor scores = context.input(1).contiguous();
    if (boxes.dtype() != DType::F32 || scores.dtype() != DType::F32) {
      node.fail_unsupported("boxes and scores must be float32");
    }
    const Shape& bs = boxes.shape();
    const Shape& ss = scores.shape();
    if (bs.rank() != 3 || bs[2] != 4 || ss.rank() != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
      fail_value(node, "boxes " + bs.to_string() + " and scores " + ss.to_string() +
                        " must be [batches, boxes, 4] and [batches, classes, boxes]");
    }
    const std::int64_t max_out = context.has_input(2) ? int_scalar(node, context.input(2)) : 0;
    const float iou = context.has_input(3) ? float_scalar(node, context.input(3), "iou_threshold") : 0.0f;
    const bool has_score_threshold = context.has_input(4);
    const float score_threshold = has_score_threshold ? float_scalar(node, context.input(4), "score_threshold") : 0.0f;
    if (max_out < 0) fail_value(node, "max_output_boxes_per_class " + std::to_string(max_out) + " is negative");
    if (!(iou >= 0.0f && iou <= 1.0f)) fail_value(node, "iou_threshold must lie in [0, 1]");
    const std::span<const float> b = boxes.data<float>();
    const std::span<const float> s = scores.data<float>();
    const std::int64_t batches = bs[0], count = bs[1], classes = ss[1];
    std::vector<std::int64_t> selected;  // triples
    std::vector<std::int64_t> order(static_cast<std::size_t>(count));
    std::vector<Box> kept;
    for (std::int64_t n = 0; n < batches; ++n) {
      for (std::int64_t c = 0; c < classes; ++c) {
        const float* score = s.data() + (n * classes + c) * count;
        order.clear();
        for (std::int64_t i = 0; i < count; ++i) {
          // A NaN score never passes; without a threshold every other score does.
          if (has_score_threshold ? score[i] > score_threshold : score[i] == score[i]) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t l, std::int64_t r) { return score[l] > score[r]; });
        kept.clear();
        std::int64_t taken = 0;
        for (std::int64_t i : order) {
          if (taken >= max_out) break;
          const Box candidate = box_at(b.data() + (n * count + i) * 4, center_ == 1);
          bool keep = true;
          for (const Box& k : kept) {
            if (suppresses(k, candidate, iou)) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          kept.push_back(candidate);
          selected.insert(selected.end(), {n, c, i});
          ++taken;
        }
      }
    }
    const std::int64_t rows = static_cast<std::int64_t>(selected.size() / 3);
    const Tensor& out = context.allocate_output(0, DType::I64, Shape{rows, 3});
    std::copy(selected.begin(), selected.end(), out.mutable_data<std::int64_t>().begin());
  }

 private:
  static std::int64_t int_scalar(const NodeInfo& node, const Tensor& t) {
    if (t.element_count() != 1) fail_value(node, "max_output_boxes_per_class must hold one value");
    return shape_ops::read_ints(node, t, "max_output_boxes_per_class")[0];
  }
  static float float_scalar(const NodeInfo& node, const Tensor& t, const char* what) {
    if (t.element_count() != 1 || t.dtype() != DType::F32) fail_value(node, std::string(what) + " must be one float32 value");
    return t.contiguous().data<float>()[0];
  }

  std::int64_t center_;
};

}  // namespace

std::unique_ptr<OpKernel> make_non_max_suppression(const NodeInfo& node) {
  return std::make_unique<NonMaxSuppression>(node);
}

}  // namespace onemodel
