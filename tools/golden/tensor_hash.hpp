// The golden hash of one tensor (spec-source golden-hashes.md, "Method"): SHA-256 over the element
// type code, the rank and each extent, all as little-endian 64-bit integers, then the elements in
// row-major order as their little-endian bytes.
#pragma once

#include <string>

#include "onemodel/tensor.hpp"

namespace onemodel::golden {

// Lowercase hexadecimal SHA-256 of `tensor` as above.
std::string tensor_hash(const Tensor& tensor);

// What a graph the library cannot run in exact mode prints instead of a hash (golden-hashes.md:
// "a case the library cannot run in exact mode prints a fixed marker hash instead, so 'skipped'
// is compared across rows like any other result"): the SHA-256 of "onemodel-golden:not-exact".
std::string not_exact_marker();

}  // namespace onemodel::golden
