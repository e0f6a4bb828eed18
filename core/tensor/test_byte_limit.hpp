// A test-only hook (issue 10, operator fuzzer): lowers the buffer byte limit of spec/tensors.md
// section 3 for the whole process, so that a fuzzer can afford to reach the refusal path that a
// request above 2^31-1 bytes takes (TensorError(Shape) from checked_byte_size) without allocating
// gigabytes for tensors that are legal but too large for its memory and time budget. Never set by
// the library; 0 restores the real limit.
#pragma once

#include <cstdint>

namespace onemodel::testing {

void set_buffer_byte_limit(std::int64_t bytes) noexcept;

}  // namespace onemodel::testing
