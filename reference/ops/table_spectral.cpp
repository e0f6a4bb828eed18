// The spectral operators (spec/ops/spectral.md): DFT, STFT, the window generators and
// MelWeightMatrix. Each row's factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/op_families.hpp"

namespace onemodel {

std::unique_ptr<OpKernel> make_blackman_window(const NodeInfo&);
std::unique_ptr<OpKernel> make_dft(const NodeInfo&);
std::unique_ptr<OpKernel> make_hamming_window(const NodeInfo&);
std::unique_ptr<OpKernel> make_hann_window(const NodeInfo&);
std::unique_ptr<OpKernel> make_mel_weight_matrix(const NodeInfo&);
std::unique_ptr<OpKernel> make_stft(const NodeInfo&);

std::span<const OpDef> spectral_ops() {
  static const std::vector<OpDef> rows = {
      {"", "BlackmanWindow", 17, 27, make_blackman_window, "I32 I64"},  // the size input; output: output_datatype
      {"", "DFT", 17, 27, make_dft, "F32 F64"},
      {"", "HammingWindow", 17, 27, make_hamming_window, "I32 I64"},
      {"", "HannWindow", 17, 27, make_hann_window, "I32 I64"},
      {"", "MelWeightMatrix", 17, 27, make_mel_weight_matrix, "I32 I64"},
      {"", "STFT", 17, 27, make_stft, "F32 F64"},
  };
  return rows;
}

}  // namespace onemodel
