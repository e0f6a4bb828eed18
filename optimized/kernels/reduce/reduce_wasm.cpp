// The float32 reductions and the canonical sum on the wasm path (reduce_body.hpp with
// lanes_wasm.hpp).
#include "optimized/kernels/reduce/reduce_body.hpp"
#include "optimized/kernels/reduce/reduce_variants.hpp"
#include "optimized/kernels/vexp/lanes_wasm.hpp"

namespace onemodel::opt::wasm {

float sum16_f32(const float* t, std::size_t n) noexcept { return reduce::sum16_array<Lanes>(t, n); }

void reduce_rows_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t begin,
                     std::size_t end, std::size_t terms) noexcept {
  reduce::rows<Lanes>(kind, term, x, out, begin, end, terms);
}

void reduce_columns_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t reduced,
                        std::size_t inner, std::size_t c0, std::size_t count) noexcept {
  reduce::columns<Lanes>(kind, term, x, out, reduced, inner, c0, count);
}

}  // namespace onemodel::opt::wasm
