// spec/ops/elementwise.md section 7: Cast's conversion of a whole tensor, every source type to
// every target type.
#include "reference/ops/cast_convert.hpp"

namespace onemodel::ew {

void convert_tensor(const Tensor& in, const Tensor& out) {
  dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
    using From = decltype(from_tag);
    const auto source = in.to_vector<typename From::storage>();
    dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
      using To = decltype(to_tag);
      auto o = out.mutable_data<typename To::storage>();
      for (std::size_t i = 0; i < source.size(); ++i) o[i] = convert_element<To, From>(source[i]);
    });
  });
}

}  // namespace onemodel::ew
