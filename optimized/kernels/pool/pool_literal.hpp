// The literal MaxPool rule for one output (spec/ops/products-conv.md section 8.2; defined in
// pool.cpp): the vector max kernels fold from -inf and hand every output left at -inf to it, since
// only the literal rule tells "every inside tap NaN" (NaN), "no inside tap" (the lowest finite
// float) and "the maximum is -inf" apart.
#pragma once

#include <cstdint>

#include "optimized/kernels/pool/pool.hpp"

namespace onemodel::opt::pool {

// Output (oy, ox) of one plane of h.in * w.in floats.
float max_one(const Pool2dShape& s, const float* plane, std::int64_t oy, std::int64_t ox) noexcept;

}  // namespace onemodel::opt::pool
