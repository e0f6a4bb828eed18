#include "core/io/file_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "onemodel/error.hpp"

namespace onemodel {
namespace {

[[noreturn]] void fail_io(const std::filesystem::path& path, const std::string& what, int err) {
  throw ModelError(ModelErrorKind::Io, what + ": " + std::strerror(err), path.string());
}

// Live read-only file mappings, so release_file_pages can tell a mapped view (whose pages the
// kernel can drop and re-read from the file) from heap memory (which it must never touch).
struct MappingRegistry {
  std::mutex mutex;
  std::set<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // [begin, end)
};

MappingRegistry& registry() {
  static MappingRegistry instance;
  return instance;
}

struct Mapping {
  void* address = nullptr;
  std::size_t length = 0;
  ~Mapping() {
    if (address == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      const auto begin = reinterpret_cast<std::uintptr_t>(address);
      registry().ranges.erase({begin, begin + length});
    }
    munmap(address, length);
  }
};

// What a non-regular file is, for the message.
const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// spec/onnx-import.md section 1: a model file is at most 2^31-1 bytes unless its reader says
// otherwise; this helper only guards against sizes that do not fit in memory at all.
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 40;

}  // namespace

int open_regular_file(const std::filesystem::path& path, struct stat& st, bool single_link) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever
  // (spec/onnx-import.md "Files"). The type is checked on the open descriptor, so a file
  // swapped after a check cannot slip through; a regular file then reads as without the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail_io(path, "cannot open file", errno);
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    fail_io(path, "cannot stat file", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ModelError(ModelErrorKind::Io, std::string("not a regular file (") + file_type_name(st.st_mode) + ")",
                     path.string());
  }
  // spec/onnx-import.md section 5 rule 3: a hard link can make a file inside the directory the
  // same file as one outside it, which no path check sees.
  if (single_link && st.st_nlink > 1) {
    ::close(fd);
    throw ModelError(ModelErrorKind::Io, "the file has " + std::to_string(st.st_nlink) + " hard links (one is allowed)",
                     path.string());
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

ByteView load_file_bytes(const std::filesystem::path& path, std::uint64_t map_threshold, bool single_link) {
  struct stat st {};
  const int fd = open_regular_file(path, st, single_link);
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
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      const auto begin = reinterpret_cast<std::uintptr_t>(address);
      registry().ranges.insert({begin, begin + mapping->length});
    }
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

void release_file_pages(const ByteView& view) noexcept {
  if (view.data == nullptr || view.size == 0) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(view.data);
  const auto end = begin + view.size;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().ranges.upper_bound({begin, UINTPTR_MAX});
    if (it == registry().ranges.begin()) return;
    --it;
    if (begin < it->first || end > it->second) return;  // not inside one live mapping
  }
  // Only whole pages inside the view: a page shared with a neighbouring value is left resident.
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const auto page = static_cast<std::uintptr_t>(page_size);
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = end / page * page;
  if (last <= first) return;
  // The mapping is private, read-only and never written, so dropping its pages loses nothing: a
  // later read faults them back in from the file. Failure only means the pages stay resident.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

std::string read_file_prefix(const std::filesystem::path& path, std::size_t count) {
  struct stat st {};
  const int fd = open_regular_file(path, st, false);
  std::string out(count, '\0');
  std::size_t done = 0;
  while (done < count) {
    const ssize_t n = ::read(fd, out.data() + done, count - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail_io(path, "cannot read file", err);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

}  // namespace onemodel
