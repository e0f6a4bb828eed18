// Work items and dispatch (from the registry list, attention_list.inc) of fused attention
// (kernels-attention.md, "Work items and constants"): one item per (b, h, block of 32 query rows);
// items write disjoint output rows, so any distribution over threads gives the same bits. Each
// thread keeps its own scratch, grown once.
#include "optimized/kernels/attention/attention.hpp"

#include <vector>

#include "optimized/kernels/attention/attention_body.hpp"
#include "optimized/kernels/attention/attention_variants.hpp"

#include "optimized/frame/kernel_registry.hpp"

namespace onemodel::opt {
namespace {

// The registry table, from the list (attention_list.inc).
constexpr AttentionVariant kVariants[] = {
#define ONEMODEL_ATTENTION_VARIANT(ns, isa, name) AttentionVariant{name, Isa::isa, ns::attention_item_f32},
#include "optimized/kernels/attention/attention_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const AttentionVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<AttentionVariant> choice{std::span<const AttentionVariant>(kVariants)};
  return choice[isa];
}

// Per-thread scratch: grows to the largest item seen, then is reused (no steady-state allocation).
attention::Scratch thread_scratch(std::size_t d, std::size_t dv) {
  thread_local std::vector<float> memory;
  const std::size_t need = attention::scratch_floats(d, dv);
  if (memory.size() < need) memory.resize(need);
  attention::Scratch s;
  float* p = memory.data();
  s.q = p;
  p += 128 * d;
  s.kt = p;
  p += d * 64;
  s.s = p;
  p += 32 * 64;
  s.mask = p;
  p += 32 * 64;
  s.acc = p;
  p += 128 * dv;
  s.m = p;
  p += 128;
  s.l = p;
  p += 32;
  s.lv = p;
  p += 128 * 16;
  s.vb = p;
  return s;
}

constexpr double kNanosecondsPerMultiplyAdd = 0.25;

}  // namespace

std::span<const AttentionVariant> attention_variants() noexcept { return kVariants; }

void attention_f32(const KernelContext& context, const AttentionArgs& args) {
  if (args.batch == 0 || args.heads == 0 || args.q_len == 0 || args.dv == 0) return;
  const AttentionItemFn fn = variant_for(context.isa).item;
  const bool fast = !context.exact;
  // Fast mode: items of up to kAttentionFastItemRows rows (an item's keys are packed once for its
  // 32-row blocks); exact mode: one 32-row block each (kernels-attention.md "Work items").
  const std::size_t item_rows = fast ? kAttentionFastItemRows : kAttentionQueryBlock;
  const std::size_t q_blocks = (args.q_len + item_rows - 1) / item_rows;
  const std::size_t items = args.batch * args.heads * q_blocks;
  const double estimate = kNanosecondsPerMultiplyAdd * static_cast<double>(args.batch * args.heads * args.q_len) *
                          static_cast<double>(args.kv_len) * static_cast<double>(args.d + args.dv);
  context.parallel_for(items, estimate, [&](std::size_t item) {
    const std::size_t qb = item % q_blocks;
    const std::size_t bh = item / q_blocks;
    const std::size_t h = bh % args.heads;
    const std::size_t b = bh / args.heads;
    const std::size_t i0 = qb * item_rows;
    const std::size_t rows = args.q_len - i0 < item_rows ? args.q_len - i0 : item_rows;
    fn(args, thread_scratch(args.d, args.dv), b, h, i0, rows, fast);
  });
}

}  // namespace onemodel::opt
