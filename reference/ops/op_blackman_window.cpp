// BlackmanWindow (opset 17): spec/ops/spectral.md section 3. Not exact (the platform's cos).
#include "reference/ops/spectral_window.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_blackman_window(const NodeInfo& node) {
  return make_spectral_window(node, spectral::WindowKind::Blackman);
}

}  // namespace onemodel
