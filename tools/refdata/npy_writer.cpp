#include "tools/refdata/npy_writer.hpp"

#include "core/conformance/npy.hpp"
#include "onemodel/error.hpp"

namespace onemodel::refdata {

void write_npy_file(const std::filesystem::path& path, const Tensor& tensor) {
  try {
    conformance::write_npy(path, tensor);
  } catch (const conformance::NpyError& e) {
    throw ModelError(ModelErrorKind::Io, e.what(), path.string());
  }
}

}  // namespace onemodel::refdata
