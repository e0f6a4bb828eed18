// Scalar path of the pooling row loop (optimized/kernels/pool/pool_row.hpp): one output per lane.
#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {
namespace {

struct ScalarLane {
  static constexpr std::int64_t kWidth = 1;
  template <bool IsMax>
  static float init() noexcept {
    return IsMax ? -__builtin_inff() : 0.0f;
  }
  static float load(const float* p, std::int64_t) noexcept { return *p; }
  template <bool IsMax>
  static float combine(float acc, float v) noexcept {
    if constexpr (IsMax) {
      return (v > acc) ? v : acc;
    } else {
      return acc + v;
    }
  }
  static void store(float* y, float v) noexcept { *y = v; }
};

}  // namespace

void pool_row_f32__scalar(PoolKind kind, const float* const* rows, std::int64_t nrows, std::int64_t kw,
                          std::int64_t sw, std::int64_t dw, std::int64_t count, float* y) noexcept {
  pool_row<ScalarLane>(kind, rows, nrows, kw, sw, dw, count, y);
}

}  // namespace onemodel::opt::pool
