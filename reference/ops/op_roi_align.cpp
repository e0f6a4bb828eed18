// RoiAlign (opsets 10 and 16): spec/ops/detection.md section 2. X [N, C, H, W] float32, rois
// [R, 4] (x1, y1, x2, y2) float32, batch_indices [R] int64; Y [R, C, output_height,
// output_width]: per bin, bilinear samples on a regular grid averaged (avg) or the largest weighted
// neighbour (max). float32 +, -, *, /, floor-to-int and comparisons in a stated order: exact.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel {
namespace {

struct Sample {
  bool inside = false;
  std::int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;  // offsets in the plane
  float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

// Section 2: the four neighbours of (y, x) and their weights; a point more than one pixel outside
// the map samples nothing.
Sample sample_at(float y, float x, std::int64_t height, std::int64_t width) {
  Sample s;
  // Written so that a NaN position is outside too.
  if (!(y >= -1.0f && y <= static_cast<float>(height) && x >= -1.0f && x <= static_cast<float>(width))) return s;
  if (y <= 0.0f) y = 0.0f;
  if (x <= 0.0f) x = 0.0f;
  std::int64_t y_low = static_cast<std::int64_t>(y), x_low = static_cast<std::int64_t>(x), y_high = 0, x_high = 0;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  s.inside = true;
  s.p1 = y_low * width + x_low;
  s.p2 = y_low * width + x_high;
  s.p3 = y_high * width + x_low;
  s.p4 = y_high * width + x_high;
  s.w1 = hy * hx;
  s.w2 = hy * lx;
  s.w3 = ly * hx;
  s.w4 = ly * lx;
  return s;
}

class RoiAlign final : public OpKernel {
 public:
  explicit RoiAlign(const NodeInfo& node)
      : max_(read_mode(node)), out_h_(node.get_int("output_height", 1)), out_w_(node.get_int("output_width", 1)),
        sampling_ratio_(node.get_int("sampling_ratio", 0)), scale_(node.get_float("spatial_scale", 1.0f)),
        half_pixel_(read_half_pixel(node)) {
    if (out_h_ < 1 || out_w_ < 1 || out_h_ > kMaxElements || out_w_ > kMaxElements) {
      node.fail_invalid("output_height and output_width must be positive");
    }
    if (sampling_ratio_ < 0) node.fail_invalid("sampling_ratio " + std::to_string(sampling_ratio_) + " is negative");
    if (sampling_ratio_ > 1024) node.fail_unsupported("sampling_ratio above 1024 (a bin of more than 2^20 samples)");
  }

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(0, {DType::F32});
    context.require_type(1, {DType::F32});
    context.require_type(2, {DType::I64});
    const Shape& x = context.input_shape(0);
    const Shape& rois = context.input_shape(1);
    const Shape& index = context.input_shape(2);
    if (x.rank() != 4 || rois.rank() != 2 || rois[1] != 4 || index.rank() != 1 || index[0] != rois[0]) {
      node.fail_invalid("X " + x.to_string() + ", rois " + rois.to_string() + " and batch_indices " + index.to_string() +
                        " must be [N, C, H, W], [R, 4] and [R]");
    }
    context.set_output(0, DType::F32, shape_ops::make_shape(node, {rois[0], x[1], out_h_, out_w_}));
  }

  void run(RunContext& context) const override {
    const Tensor x = context.input(0).contiguous();
    const Tensor rois = context.input(1).contiguous();
    const Tensor index = context.input(2).contiguous();
    const std::span<const float> in = x.data<float>();
    const std::span<const float> r = rois.data<float>();
    const std::span<const std::int64_t> batch = index.data<std::int64_t>();
    const std::span<float> out = context.output(0).mutable_data<float>();
    const std::int64_t n_count = x.shape()[0], channels = x.shape()[1], height = x.shape()[2], width = x.shape()[3];
    const float offset = half_pixel_ ? 0.5f : 0.0f;
    std::vector<Sample> samples;
    for (std::int64_t k = 0; k < rois.shape()[0]; ++k) {
      const std::int64_t n = batch[static_cast<std::size_t>(k)];
      if (n < 0 || n >= n_count) {
        shape_ops::fail_index(context.node(), "batch_indices[" + std::to_string(k) + "] = " + std::to_string(n) +
                                                  " outside [0, " + std::to_string(n_count) + ")");
      }
      const float* roi = r.data() + k * 4;
      const float start_w = roi[0] * scale_ - offset, start_h = roi[1] * scale_ - offset;
      const float end_w = roi[2] * scale_ - offset, end_h = roi[3] * scale_ - offset;
      float roi_w = end_w - start_w, roi_h = end_h - start_h;
      if (!half_pixel_) {
        roi_w = std::max(roi_w, 1.0f);
        roi_h = std::max(roi_h, 1.0f);
      }
      const float bin_h = roi_h / static_cast<float>(out_h_), bin_w = roi_w / static_cast<float>(out_w_);
      const std::int64_t grid_h = sampling_ratio_ > 0 ? sampling_ratio_ : grid_extent(roi_h / static_cast<float>(out_h_));
      const std::int64_t grid_w = sampling_ratio_ > 0 ? sampling_ratio_ : grid_extent(roi_w / static_cast<float>(out_w_));
      const float count = static_cast<float>(std::max<std::int64_t>(grid_h * grid_w, 1));
      const std::int64_t per_bin = grid_h * grid_w;
      if (per_bin > kMaxSamplesPerBin) {
        shape_ops::fail_index(context.node(), "roi " + std::to_string(k) + " needs " + std::to_string(per_bin) +
                                                  " samples per bin, more than the " + std::to_string(kMaxSamplesPerBin) +
                                                  " the library takes (set sampling_ratio)");
      }
      for (std::int64_t ph = 0; ph < out_h_; ++ph) {
        for (std::int64_t pw = 0; pw < out_w_; ++pw) {
          // The bin's sample points, shared by the channels.
          samples.clear();
          for (std::int64_t iy = 0; iy < grid_h; ++iy) {
            const float y = start_h + static_cast<float>(ph) * bin_h +
                            (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
            for (std::int64_t ix = 0; ix < grid_w; ++ix) {
              const float xx = start_w + static_cast<float>(pw) * bin_w +
                               (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
              samples.push_back(sample_at(y, xx, height, width));
            }
          }
          for (std::int64_t c = 0; c < channels; ++c) {
            const float* plane = in.data() + (n * channels + c) * height * width;
            float value = 0.0f;
            for (std::size_t j = 0; j < samples.size(); ++j) {
              const Sample& s = samples[j];
              if (max_) {
                // Each weighted neighbour competes on its own (ops-coverage.md "RoiAlign"); a point
                // outside counts as 0.
                float v = 0.0f;
                if (s.inside) {
                  v = std::max(std::max(std::max(s.w1 * plane[s.p1], s.w2 * plane[s.p2]), s.w3 * plane[s.p3]),
                               s.w4 * plane[s.p4]);
                }
                value = j == 0 ? v : std::max(value, v);
              } else if (s.inside) {
                value += ((s.w1 * plane[s.p1] + s.w2 * plane[s.p2]) + s.w3 * plane[s.p3]) + s.w4 * plane[s.p4];
              }
            }
            out[static_cast<std::size_t>(((k * channels + c) * out_h_ + ph) * out_w_ + pw)] = max_ ? value : value / count;
          }
        }
      }
    }
  }

 private:
  static bool read_mode(const NodeInfo& node) {
    const std::string mode = node.get_string("mode", "avg");
    if (mode != "avg" && mode != "max") node.fail_invalid("mode '" + mode + "' is neither avg nor max");
    return mode == "max";
  }
  static bool read_half_pixel(const NodeInfo& node) {
    if (node.opset() < 16) return false;  // opset 10 behaves as output_half_pixel
    const std::string mode = node.get_string("coordinate_transformation_mode", "half_pixel");
    if (mode != "half_pixel" && mode != "output_half_pixel") {
      node.fail_invalid("coordinate_transformation_mode '" + mode + "' is neither half_pixel nor output_half_pixel");
    }
    return mode == "half_pixel";
  }
  // Section 2: ceil(region extent per bin); 0 for an empty or NaN region (no samples: the bin is
  // 0); extents beyond 2^20 are cut there, and the product is then refused by run().
  static std::int64_t grid_extent(float per_bin) {
    if (!(per_bin > 0.0f)) return 0;
    if (per_bin > 1048576.0f) return 1048577;
    return static_cast<std::int64_t>(std::ceil(per_bin));
  }
  static constexpr std::int64_t kMaxSamplesPerBin = std::int64_t{1} << 20;

  bool max_;
  std::int64_t out_h_, out_w_, sampling_ratio_;
  float scale_;
  bool half_pixel_;
};

}  // namespace

std::unique_ptr<OpKernel> make_roi_align(const NodeInfo& node) { return std::make_unique<RoiAlign>(node); }

}  // namespace onemodel
