// Loading and verifying a reference directory (ref_data.hpp; oracles.md, "Reference outputs":
// index.json holds the SHA-256 of each file, which is checked before the file is parsed).
#include "tools/refdata/ref_data.hpp"

#include "core/io/file_bytes.hpp"
#include "core/util/sha256.hpp"
#include "onemodel/error.hpp"
#include "tools/refdata/npy_reader.hpp"

namespace onemodel::refdata {
namespace {

namespace fs = std::filesystem;

// The lexical checks of the index cannot see symbolic links: resolve both and require the
// file's real path to lie under the directory's real path.
void check_inside(const fs::path& dir, const RefTensorEntry& entry) {
  std::error_code ec;
  const fs::path real_dir = fs::canonical(dir, ec);
  if (ec) throw ModelError(ModelErrorKind::Io, "cannot resolve the directory: " + ec.message(), dir.string());
  const fs::path real_file = fs::weakly_canonical(entry.path, ec);
  if (ec) throw ModelError(ModelErrorKind::Io, "cannot resolve the file: " + ec.message(), entry.path.string());
  const fs::path relative = real_file.lexically_relative(real_dir);
  if (relative.empty() || *relative.begin() == "..") {
    throw ModelError(ModelErrorKind::ExternalData, "file '" + entry.file + "' resolves outside the directory",
                     (dir / "index.json").string());
  }
}

Tensor load_entry(const fs::path& dir, const RefTensorEntry& entry) {
  check_inside(dir, entry);
  const std::string name = entry.path.string();
  const ByteView bytes = load_file_bytes(entry.path);
  const std::string digest = sha256_hex(bytes.span());
  if (digest != entry.sha256) {
    throw ModelError(ModelErrorKind::InvalidModel,
                     "SHA-256 mismatch: the index says " + entry.sha256 + ", the file has " + digest, name);
  }
  Tensor tensor = parse_npy(bytes.span(), name);
  if (tensor.dtype() != entry.dtype) {
    throw ModelError(ModelErrorKind::InvalidModel,
                     "the file holds " + std::string(index_dtype_name(tensor.dtype())) + ", the index says " +
                         std::string(index_dtype_name(entry.dtype)),
                     name);
  }
  // Compared extent by extent: the index's extents are bounded, but their product is not
  // checked there, so no Shape is built from them.
  bool same = tensor.shape().rank() == static_cast<int>(entry.shape.size());
  std::string listed;
  for (std::size_t d = 0; d < entry.shape.size(); ++d) {
    listed += (d > 0 ? ", " : "") + std::to_string(entry.shape[d]);
    same = same && tensor.shape()[static_cast<int>(d)] == entry.shape[d];
  }
  if (!same) {
    throw ModelError(ModelErrorKind::InvalidModel,
                     "the file's shape is " + tensor.shape().to_string() + ", the index says [" + listed + "]", name);
  }
  return tensor;
}

}  // namespace

RefData load_ref_data(const fs::path& dir) {
  RefData data;
  data.index = read_ref_index(dir);
  for (const RefTensorEntry& entry : data.index.inputs) data.inputs.push_back(load_entry(dir, entry));
  for (const RefTensorEntry& entry : data.index.outputs) data.outputs.push_back(load_entry(dir, entry));
  return data;
}

std::string file_sha256(const fs::path& path) { return sha256_hex(load_file_bytes(path).span()); }

}  // namespace onemodel::refdata
