// Attention work items on the neon path (attention_body.hpp with lanes_neon.hpp).
#include "optimized/kernels/attention/attention_body.hpp"
#include "optimized/kernels/attention/attention_variants.hpp"
#include "optimized/kernels/vexp/lanes_neon.hpp"

namespace onemodel::opt::neon {

void attention_item_f32(const AttentionArgs& args, const attention::Scratch& scratch, std::size_t b, std::size_t h,
                        std::size_t i0, std::size_t rows, bool fast) noexcept {
  if (fast) attention::work_item<Lanes, true>(args, scratch, b, h, i0, rows);
  else attention::work_item<Lanes, false>(args, scratch, b, h, i0, rows);
}

}  // namespace onemodel::opt::neon
