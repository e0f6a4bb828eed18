// Softmax and LogSoftmax rows on the sse path (softmax_body.hpp with lanes_sse.hpp).
#include "optimized/kernels/softmax/softmax_body.hpp"
#include "optimized/kernels/softmax/softmax_variants.hpp"
#include "optimized/kernels/vexp/lanes_sse.hpp"

namespace onemodel::opt::sse {

void softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols,
                      bool fast) noexcept {
  for (std::size_t r = begin; r < end; ++r) {
    if (fast) softmax::softmax_row<Lanes, true>(x + r * cols, y + r * cols, cols);
    else softmax::softmax_row<Lanes, false>(x + r * cols, y + r * cols, cols);
  }
}

void log_softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols,
                          bool fast, float (*log_fn)(float)) noexcept {
  for (std::size_t r = begin; r < end; ++r) {
    if (fast) softmax::log_softmax_row<Lanes, true>(x + r * cols, y + r * cols, cols, log_fn);
    else softmax::log_softmax_row<Lanes, false>(x + r * cols, y + r * cols, cols, log_fn);
  }
}

}  // namespace onemodel::opt::sse
