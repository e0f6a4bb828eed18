// Packed weights shared within a session (issue 15; graph-passes.md "Memory"): when several nodes
// read one constant matrix -- directly, or through views such as Identity, Reshape or a repeated
// initializer name (ALBERT's twelve layers read one set of weights) -- the first asks for its
// packed form and the others receive the same one, so the session holds one packed copy instead
// of one per node. Packing only moves values, so a shared pack gives every reader the bits its
// own pack would have.
//
// A pack is found by what it was made from: the buffer holding the source elements (compared by
// identity, never by address alone: an entry keeps a std::weak_ptr to the buffer, whose control
// block cannot be reused while the entry exists, and ignores a buffer that has gone), the byte
// offset of element (0, 0) in it, the strides, k, n, the kernel path and a variant naming how the
// elements are read (binary32 as stored, or widened from a 16-bit type). Constants are never
// written after they are made, so equal keys mean equal elements. Neither the source nor the pack
// is kept alive by the table: a pack lives as long as a kernel or plan holds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "onemodel/tensor.hpp"
#include "optimized/frame/function_ref.hpp"
#include "optimized/kernels/gemm/gemm.hpp"

namespace onemodel::opt {

// How a pack reads its source's elements (part of the key).
enum class PackSource : std::uint8_t {
  Float32,          // binary32 elements as stored
  WidenedBinary16,  // binary16 elements, widened exactly
  WidenedBFloat16,  // bfloat16 elements, widened exactly
};

// Where a k x n matrix lies in a constant: `source` holds it, `element0` is element (0, 0) inside
// source's buffer, (row_stride, col_stride) in elements of the source type.
struct PackOrigin {
  const Tensor* source = nullptr;
  const void* element0 = nullptr;
  std::ptrdiff_t row_stride = 0;
  std::ptrdiff_t col_stride = 1;
  PackSource kind = PackSource::Float32;
};

class WeightPacks {
 public:
  WeightPacks() = default;
  WeightPacks(const WeightPacks&) = delete;
  WeightPacks& operator=(const WeightPacks&) = delete;

  // The packed B of the matrix at `origin` for path `isa`: the one already made for the same key
  // while it is still held somewhere, else make() (called without the lock held, so two threads
  // may both pack; the first stored wins and both results have the same bits).
  std::shared_ptr<const PackedB> packed_b(Isa isa, std::size_t k, std::size_t n, const PackOrigin& origin,
                                          FunctionRef<PackedB()> make);

  // The counting hook of the sharing tests: how many packs packed_b (with or without a table) has
  // made on this thread. A session made on a thread counts the packs its passes and plans made.
  static std::uint64_t packs_made_on_this_thread() noexcept;

 private:
  // (buffer address, byte offset of element 0, row stride, col stride, k, n, isa, kind)
  using Key =
      std::tuple<const void*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::size_t, std::size_t, int, int>;
  struct Entry {
    std::weak_ptr<Buffer> buffer;
    std::weak_ptr<const PackedB> pack;
  };
  void drop_stale_locked();

  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::size_t inserts_since_sweep_ = 0;
};

// packed_b through `packs` when there is a table and the origin can be keyed (a source over a
// buffer), else a pack of its own (still counted).
std::shared_ptr<const PackedB> shared_packed_b(WeightPacks* packs, Isa isa, std::size_t k, std::size_t n,
                                               const PackOrigin& origin, FunctionRef<PackedB()> make);

}  // namespace onemodel::opt
