// LayerNormalization rows on the neon path (layernorm_body.hpp with lanes_neon.hpp).
#include "optimized/kernels/layernorm/layernorm_body.hpp"
#include "optimized/kernels/layernorm/layernorm_variants.hpp"
#include "optimized/kernels/vexp/lanes_neon.hpp"

namespace onemodel::opt::neon {

void layer_norm_rows_f32(const LayerNormArgs& args, std::size_t begin, std::size_t end) noexcept {
  for (std::size_t r = begin; r < end; ++r) layernorm::normalize_row<Lanes>(args, r);
}

}  // namespace onemodel::opt::neon
