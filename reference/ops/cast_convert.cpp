// spec/ops/elementwise.md section 7: Cast's conversion of a whole tensor, every source type to
// every target type.
#include "reference/ops/cast_convert.hpp"
#include "reference/ops/element_reader.hpp"

namespace onemodel::ew {

void convert_tensor(const Tensor& in, const Tensor& out) {
  dispatch(in.dtype(), StoredTypes{}, [&](auto from_tag) {
    using From = decltype(from_tag);
    // Read in place (no copy of the input: the output never shares its storage).
    ElementReader<typename From::storage> source(in, in.shape());
    dispatch(out.dtype(), StoredTypes{}, [&](auto to_tag) {
      using To = decltype(to_tag);
      auto o = out.mutable_data<typename To::storage>();
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = convert_element<To, From>(source.next());
    });
  });
}

}  // namespace onemodel::ew
