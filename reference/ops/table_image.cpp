// Image operators (spec/ops/image.md). Each row's factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_image_decoder(const NodeInfo&);

std::span<const OpDef> image_ops() {
  static const std::vector<OpDef> rows = {
      {"", "ImageDecoder", 20, 27, make_image_decoder, "U8"},
  };
  return rows;
}

}  // namespace onemodel
