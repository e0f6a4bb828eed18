#include "optimized/runtime/weight_packs.hpp"

#include <utility>

namespace onemodel::opt {
namespace {

thread_local std::uint64_t t_packs_made = 0;

PackedB counted_pack(FunctionRef<PackedB()> make) {
  ++t_packs_made;
  return make();
}

// Two weak references to one buffer object (owner identity, not address).
bool same_owner(const std::weak_ptr<Buffer>& a, const std::shared_ptr<Buffer>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}

// Sweep the table every this many inserts, so entries whose pack has gone do not pile up.
constexpr std::size_t kSweepEvery = 64;

}  // namespace

std::uint64_t WeightPacks::packs_made_on_this_thread() noexcept { return t_packs_made; }

void WeightPacks::drop_stale_locked() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.pack.expired() || it->second.buffer.expired()) {
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  inserts_since_sweep_ = 0;
}

std::shared_ptr<const PackedB> WeightPacks::packed_b(Isa isa, std::size_t k, std::size_t n, const PackOrigin& origin,
                                                     FunctionRef<PackedB()> make) {
  const std::shared_ptr<Buffer>* buffer = origin.source == nullptr ? nullptr : &origin.source->buffer();
  const std::byte* base = buffer != nullptr && *buffer != nullptr ? (*buffer)->data() : nullptr;
  if (base == nullptr || origin.element0 == nullptr) {
    return std::make_shared<const PackedB>(counted_pack(make));
  }
  const std::ptrdiff_t offset = static_cast<const std::byte*>(origin.element0) - base;
  const Key key{static_cast<const void*>(buffer->get()), offset, origin.row_stride, origin.col_stride, k, n,
                static_cast<int>(isa), static_cast<int>(origin.kind)};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    if (it != entries_.end() && !it->second.buffer.expired() && same_owner(it->second.buffer, *buffer)) {
      if (std::shared_ptr<const PackedB> held = it->second.pack.lock()) return held;
    }
  }
  auto made = std::make_shared<const PackedB>(counted_pack(make));
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& entry = entries_[key];
  if (!entry.buffer.expired() && same_owner(entry.buffer, *buffer)) {
    // Another thread stored one meanwhile: share it (same bits) and let ours go.
    if (std::shared_ptr<const PackedB> held = entry.pack.lock()) return held;
  }
  entry.buffer = *buffer;
  entry.pack = made;
  if (++inserts_since_sweep_ >= kSweepEvery) drop_stale_locked();
  return made;
}

std::shared_ptr<const PackedB> shared_packed_b(WeightPacks* packs, Isa isa, std::size_t k, std::size_t n,
                                               const PackOrigin& origin, FunctionRef<PackedB()> make) {
  if (packs == nullptr) return std::make_shared<const PackedB>(counted_pack(make));
  return packs->packed_b(isa, k, n, origin, make);
}

}  // namespace onemodel::opt
