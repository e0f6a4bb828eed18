// Whole-model cases for the session fuzzer (fuzz/session_fuzz.cpp, issue 11): the bytes are a
// model file, ONNX or OneModel (told apart by the first eight bytes, as Session::load_bytes does).
// It is read with the library's own readers, and its inputs are made from what the graph declares:
// fixed extents as written, one extent in 0..3 per symbolic name (the same for every input that
// names it), 1..3 for an unknown extent, rank 0..3 when the rank is not declared, values from the
// operator fuzzer's generator (diff/op_fuzz_case.hpp). The values come from a stream seeded by a
// hash of the file, so a file replays exactly. The case then goes to the operator fuzzer's oracle
// (diff/op_fuzz_check.hpp): both engines, both modes, 1, 2 and 4 threads, every kernel path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "diff/op_fuzz_case.hpp"

namespace onemodel::diff {

// Inputs above this many elements in all are not fed: the case is marked not runnable (a model
// whose declared inputs are that large is a valid model, but not one a fuzzer can afford).
inline constexpr std::int64_t kMaxSessionFeedElements = std::int64_t{1} << 16;

// model_error is set (and the case is not run) when the file is refused by its reader
// (a ModelError, the typed refusal) or when its inputs cannot be made: a sequence, map or
// optional input, an element type the library does not store, or inputs above the bound.
OpFuzzCase build_session_case(std::span<const std::uint8_t> file);

}  // namespace onemodel::diff
