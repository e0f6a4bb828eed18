// The golden hash of one tensor (spec-source golden-hashes.md, "Method"): SHA-256 over the element
// type code, the rank and each extent, all as little-endian 64-bit integers, then the elements in
// row-major order as their little-endian bytes.
#pragma once

#include <string>

#include "core/util/sha256.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::golden {

// Lowercase hexadecimal SHA-256 of `tensor` as above.
std::string tensor_hash(const Tensor& tensor);

// Feeds `tensor` to `sha` exactly as tensor_hash does (header, then elements). Several tensors fed
// one after another give the one hash of a node case, "output tensors in order" (golden-hashes.md,
// "Method"; node_cases.hpp).
void hash_tensor_into(Sha256& sha, const Tensor& tensor);

// What a graph the library cannot run in exact mode prints instead of a hash (golden-hashes.md:
// "a case the library cannot run in exact mode prints a fixed marker hash instead, so 'skipped'
// is compared across rows like any other result"): the SHA-256 of "onemodel-golden:not-exact".
std::string not_exact_marker();

}  // namespace onemodel::golden
