// The two column phases of stride-2 phase-plane rows in one pass over the input (docs/design.md
// "Stride-2 phase planes by bands"). The generic row copy (depthwise_plane.hpp, phase_rows) builds
// one phase per pass, `out[j] = src[2 * j]`, which GCC vectorizes as two vpermd and a blend per
// eight values and which reads each input row twice: on AMD Zen 3 it took half of a 96-channel
// 3x3/2 layer at 112 x 112. Here sixteen input columns are loaded once (four 128-bit loads) and
// split into their even and odd columns with one in-lane shuffle each. Only data moves: the phase
// planes hold the same values, so the walk's outputs keep their bits.
#pragma once

#include <cstddef>

namespace onemodel::opt {

#if defined(__x86_64__)
// For r < rows and the row's src = in + r * src_step: even[r * out_step + m] = src[2m] for m <
// even_count, odd[r * out_step + m] = src[2m + 1] for m < odd_count. Reads only those columns.
// Requires AVX2.
void depthwise_phase_split__avx2(const float* in, std::size_t src_step, std::size_t rows, float* even,
                                 std::size_t even_count, float* odd, std::size_t odd_count,
                                 std::size_t out_step) noexcept;
#endif

}  // namespace onemodel::opt
