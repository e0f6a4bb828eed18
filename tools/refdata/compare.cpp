// Output comparison (compare.hpp; reference-models.md, "Method").
#include "tools/refdata/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "core/graph/tensor_bytes.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/float8.hpp"
#include "onemodel/half.hpp"
#include "tools/refdata/ref_index.hpp"

namespace onemodel::refdata {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double as_double(float v) { return v; }
double as_double(double v) { return v; }
template <class T>
double as_double(T v) {
  return static_cast<double>(v);
}

struct Accumulator {
  double max_diff = 0.0;
  double max_ref = 0.0;
  double max_elementwise = 0.0;
  std::int64_t differing = 0;

  void add(double ours, double ref) {
    double diff = 0.0;
    if (std::isnan(ours) || std::isnan(ref)) {
      diff = std::isnan(ours) && std::isnan(ref) ? 0.0 : kInfinity;
    } else if (std::isinf(ours) || std::isinf(ref)) {
      diff = ours == ref ? 0.0 : kInfinity;
    } else {
      diff = std::fabs(ours - ref);
    }
    if (!std::isnan(ref)) max_ref = std::max(max_ref, std::fabs(ref));
    if (diff != 0.0) ++differing;
    max_diff = std::max(max_diff, diff);
    const double floor = std::isnan(ref) ? 1e-6 : std::max(std::fabs(ref), 1e-6);
    max_elementwise = std::max(max_elementwise, diff / floor);
  }
};

template <class T>
void accumulate(const Tensor& ours, const Tensor& ref, Accumulator& acc) {
  const std::span<const T> a = ours.data<T>();
  const std::span<const T> b = ref.data<T>();
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) acc.add(as_double(a[k]), as_double(b[k]));
}

template <float (*Convert)(std::uint16_t)>
void accumulate_half(const Tensor& ours, const Tensor& ref, Accumulator& acc) {
  const std::span<const std::uint16_t> a = ours.data<std::uint16_t>();
  const std::span<const std::uint16_t> b = ref.data<std::uint16_t>();
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) acc.add(Convert(a[k]), Convert(b[k]));
}

}  // namespace

OutputComparison compare_output(const Tensor& ours_in, const Tensor& reference_in) {
  OutputComparison result;
  if (ours_in.dtype() != reference_in.dtype()) {
    result.problem = "dtype " + std::string(index_dtype_name(ours_in.dtype())) + ", reference " +
                     std::string(index_dtype_name(reference_in.dtype()));
    return result;
  }
  if (!(ours_in.shape() == reference_in.shape())) {
    result.problem = "shape " + ours_in.shape().to_string() + ", reference " + reference_in.shape().to_string();
    return result;
  }
  result.comparable = true;
  const Tensor ours = ours_in.contiguous();
  const Tensor ref = reference_in.contiguous();
  Accumulator acc;
  switch (ours.dtype()) {
    case DType::F32: accumulate<float>(ours, ref, acc); break;
    case DType::F64: accumulate<double>(ours, ref, acc); break;
    case DType::F16: accumulate_half<half_bits_to_float>(ours, ref, acc); break;
    case DType::BF16: accumulate_half<bfloat16_bits_to_float>(ours, ref, acc); break;
    case DType::U8: accumulate<std::uint8_t>(ours, ref, acc); break;
    case DType::Bool: accumulate<std::uint8_t>(ours, ref, acc); break;
    case DType::I8: accumulate<std::int8_t>(ours, ref, acc); break;
    case DType::U16: accumulate<std::uint16_t>(ours, ref, acc); break;
    case DType::I16: accumulate<std::int16_t>(ours, ref, acc); break;
    case DType::I32: accumulate<std::int32_t>(ours, ref, acc); break;
    case DType::U32: accumulate<std::uint32_t>(ours, ref, acc); break;
    // 64-bit integers: equality is exact; the magnitude in double is only for the report.
    case DType::I64: {
      const auto a = ours.data<std::int64_t>();
      const auto b = ref.data<std::int64_t>();
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        acc.add(static_cast<double>(a[k]), static_cast<double>(b[k]));
        if (a[k] != b[k] && static_cast<double>(a[k]) == static_cast<double>(b[k])) {
          ++acc.differing;
          acc.max_diff = std::max(acc.max_diff, std::numeric_limits<double>::min());
        }
      }
      break;
    }
    // The 8-bit floats at their exact values (spec/tensors.md section 2.1).
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: {
      const auto format = static_cast<Float8Format>(ours.dtype());
      const auto a = ours.data<std::uint8_t>();
      const auto b = ref.data<std::uint8_t>();
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        acc.add(float8_bits_to_float(format, a[k]), float8_bits_to_float(format, b[k]));
      }
      break;
    }
    case DType::U64: {
      const auto a = ours.data<std::uint64_t>();
      const auto b = ref.data<std::uint64_t>();
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        acc.add(static_cast<double>(a[k]), static_cast<double>(b[k]));
        if (a[k] != b[k] && static_cast<double>(a[k]) == static_cast<double>(b[k])) {
          ++acc.differing;
          acc.max_diff = std::max(acc.max_diff, std::numeric_limits<double>::min());
        }
      }
      break;
    }
    case DType::String: {
      // Strings: equal or not (spec/tensors.md section 8); no magnitude.
      const std::vector<std::string> a = ours.to_vector<std::string>();
      const std::vector<std::string> b = ref.to_vector<std::string>();
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        acc.add(0.0, 0.0);
        if (a[k] != b[k]) ++acc.differing;
      }
      break;
    }
    // Sub-byte types, one element per byte (spec/tensors.md section 2.2): integers compared as
    // such; FLOAT4E2M1 by its code, which orders its values only within one sign.
    case DType::U4:
    case DType::U2:
    case DType::F4E2M1: accumulate<std::uint8_t>(ours, ref, acc); break;
    case DType::I4:
    case DType::I2: accumulate<std::int8_t>(ours, ref, acc); break;
  }
  result.floating = dtype_is_floating(ours.dtype());
  result.differing = acc.differing;
  result.elementwise_error = acc.max_elementwise;
  if (acc.max_diff == 0.0) result.scaled_error = 0.0;
  else result.scaled_error = acc.max_ref == 0.0 ? kInfinity : acc.max_diff / acc.max_ref;
  return result;
}

bool passes_gate(const OutputComparison& comparison, double gate) noexcept {
  if (!comparison.comparable) return false;
  // reference-models.md, "Method": the gate is on the scaled error; non-float outputs are exact.
  if (!comparison.floating) return comparison.differing == 0;
  return comparison.scaled_error <= gate;
}

std::string output_hash16(const Tensor& tensor) {
  return sha256_hex(canonical_bytes(tensor)).substr(0, 16);
}

}  // namespace onemodel::refdata
