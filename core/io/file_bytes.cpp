#include "core/io/file_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "onemodel/error.hpp"

namespace onemodel {
namespace {

[[noreturn]] void fail_io(const std::filesystem::path& path, const std::string& what, int err) {
  throw ModelError(ModelErrorKind::Io, what + ": " + std::strerror(err), path.string());
}

struct Mapping {
  void* address = nullptr;
  std::size_t length = 0;
  ~Mapping() {
    if (address != nullptr) munmap(address, length);
  }
};

// spec/onnx-import.md section 1: a model file is at most 2^31-1 bytes unless its reader says
// otherwise; this helper only guards against sizes that do not fit in memory at all.
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 40;

}  // namespace

ByteView load_file_bytes(const std::filesystem::path& path, std::uint64_t map_threshold) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_io(path, "cannot open file", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    fail_io(path, "cannot stat file", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ModelError(ModelErrorKind::Io, "not a regular file", path.string());
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > kMaxFileBytes) {
    ::close(fd);
    throw ModelError(ModelErrorKind::Io, "file too large (" + std::to_string(size) + " bytes)", path.string());
  }
  if (size == 0) {
    ::close(fd);
    return ByteView{};
  }
  if (size >= map_threshold) {
    void* address = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);
    if (address == MAP_FAILED) fail_io(path, "cannot map file", err);
    auto mapping = std::make_shared<Mapping>();
    mapping->address = address;
    mapping->length = static_cast<std::size_t>(size);
    return ByteView{static_cast<const std::byte*>(address), mapping->length, mapping};
  }
  auto buffer = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(size));
  std::size_t done = 0;
  while (done < buffer->size()) {
    ssize_t n = ::read(fd, buffer->data() + done, buffer->size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      fail_io(path, "cannot read file", err);
    }
    if (n == 0) break;  // the file shrank while we read it
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != buffer->size()) {
    throw ModelError(ModelErrorKind::Io, "file changed size while being read", path.string());
  }
  return ByteView{buffer->data(), buffer->size(), buffer};
}

std::string read_file_prefix(const std::filesystem::path& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(ModelErrorKind::Io, "cannot open file", path.string());
  std::string out(count, '\0');
  in.read(out.data(), static_cast<std::streamsize>(count));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

}  // namespace onemodel
