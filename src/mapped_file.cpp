// MappedFile: open, grow (fallocate + remap), sync and close. Everything
// here is a system call or two; the inline write()/read() never come here
// unless the mapping must grow.
#include <bin_serializer/buffer/mapped_file.hpp>

#if defined(BIN_SERIALIZER_HAS_MAPPED_FILE)

#include <algorithm>
#include <cerrno>
#include <limits>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bin_serializer {

namespace {

std::byte empty_byte;

// The first mapping of a new file: small logs stay small, and doubling from
// here reaches gigabytes in a few dozen remaps.
constexpr std::size_t min_capacity = std::size_t{64} * 1024;

std::size_t page_size() noexcept {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

int close_fd(int fd) noexcept {
  // Linux closes the descriptor even when close() reports EINTR: never retry.
  return ::close(fd);
}

} // namespace

std::byte* MappedFile::empty_storage() noexcept { return &empty_byte; }

void MappedFile::swap(MappedFile& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(cap_, other.cap_);
  std::swap(mapped_, other.mapped_);
  std::swap(rpos_, other.rpos_);
  std::swap(fd_, other.fd_);
  std::swap(writable_, other.writable_);
  std::swap(err_, other.err_);
}

bool MappedFile::open(const char* path, mode m) noexcept {
  if (!close()) return false;
  err_ = {};
  int flags = O_CLOEXEC;
  switch (m) {
  // create truncates only once the lock is held (below): O_TRUNC would cut
  // the file under another writer's mapping.
  case mode::create: flags |= O_RDWR | O_CREAT; break;
  case mode::append: flags |= O_RDWR | O_CREAT; break;
  case mode::read_only: flags |= O_RDONLY; break;
  }
  int fd = -1;
  do {
    fd = ::open(path, flags, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail(errc::io_error);

  if (m != mode::read_only) {
    int rc = 0;
    do {
      rc = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    // A file system without flock (ENOLCK, EINVAL) is opened unlocked, as
    // before locks existed; another holder is a failure.
    const bool held_elsewhere = rc != 0 && errno == EWOULDBLOCK;
    if (held_elsewhere || (m == mode::create && ::ftruncate(fd, 0) != 0)) {
      const int saved = errno;
      (void)close_fd(fd);
      errno = saved;
      return fail(errc::io_error);
    }
  }

  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<unsigned long long>(st.st_size) > std::numeric_limits<std::size_t>::max() / 2) {
    const int saved = errno;
    (void)close_fd(fd);
    errno = saved;
    return fail(errc::io_error);
  }
  const auto length = static_cast<std::size_t>(st.st_size);
  fd_ = fd;
  writable_ = m != mode::read_only;
  size_ = 0;
  cap_ = 0;
  mapped_ = 0;
  rpos_ = 0;
  if (length != 0 && !remap(length)) {
    const error e = err_;
    (void)close();
    err_ = e;
    return false;
  }
  size_ = length;
  return true;
}

bool MappedFile::remap(std::size_t new_capacity) noexcept {
  const int prot = writable_ ? PROT_READ | PROT_WRITE : PROT_READ;
  void* p = MAP_FAILED;
  if (mapped_ == 0) {
    p = ::mmap(nullptr, new_capacity, prot, MAP_SHARED, fd_, 0);
  } else {
#if defined(__linux__)
    // Moves the page-table entries, not the data: growing costs no copy.
    p = ::mremap(data_, mapped_, new_capacity, MREMAP_MAYMOVE);
#else
    p = ::mmap(nullptr, new_capacity, prot, MAP_SHARED, fd_, 0);
    if (p != MAP_FAILED) (void)::munmap(data_, mapped_);
#endif
  }
  if (p == MAP_FAILED) return fail(errc::out_of_memory);
  data_ = static_cast<std::byte*>(p);
  mapped_ = new_capacity;
  cap_ = new_capacity;
  return true;
}

bool MappedFile::grow(std::size_t min_cap) noexcept {
  if (!writable_) return fail(errc::io_error);
  const std::size_t page = page_size();
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (min_cap > max - page) return fail(errc::out_of_memory);
  // Whole pages: the kernel maps them anyway.
  const std::size_t target = (std::max(min_cap, min_capacity) + page - 1) / page * page;
  // Reserve the disk blocks now: a store into a hole the file system cannot
  // fill (disk full) would be a SIGBUS, not an error we could return.
  const int rc =
      ::posix_fallocate(fd_, static_cast<off_t>(cap_), static_cast<off_t>(target - cap_));
  if (rc != 0) {
    errno = rc;
    // Undo a partial extension so the file length keeps matching cap_.
    if (::ftruncate(fd_, static_cast<off_t>(cap_)) != 0) { /* the fallocate failure is reported */
    }
    return fail(rc == ENOSPC || rc == EFBIG ? errc::out_of_memory : errc::io_error);
  }
  if (!remap(target)) {
    if (::ftruncate(fd_, static_cast<off_t>(cap_)) != 0) { /* the remap failure is what we report */
    }
    return false;
  }
  return true;
}

bool MappedFile::write_slow(const void* src, std::size_t n) noexcept {
  if (!writable_) return fail(errc::io_error);
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (n > max / 2 - size_) return fail(errc::out_of_memory);
  const std::size_t needed = size_ + n;
  if (!grow(std::max(needed, cap_ * 2)) && !grow(needed)) return false;
  if (n != 0) std::memcpy(data_ + size_, src, n);
  size_ += n;
  return true;
}

bool MappedFile::sync() noexcept {
  if (fd_ < 0) return fail(errc::io_error);
  if (size_ == 0) return true;
  // msync wants a page-aligned start; data_ is (mmap returns page-aligned).
  if (::msync(data_, size_, MS_SYNC) != 0) return fail(errc::io_error);
  return true;
}

bool MappedFile::close() noexcept {
  if (fd_ < 0) return true;
  bool ok = true;
  if (mapped_ != 0 && ::munmap(data_, mapped_) != 0) ok = false;
  if (writable_ && cap_ != size_ && ::ftruncate(fd_, static_cast<off_t>(size_)) != 0) ok = false;
  if (close_fd(fd_) != 0) ok = false;
  const std::size_t at = size_;
  data_ = empty_storage();
  size_ = cap_ = mapped_ = rpos_ = 0;
  fd_ = -1;
  writable_ = false;
  if (!ok) err_ = {errc::io_error, at};
  return ok;
}

} // namespace bin_serializer

#endif // BIN_SERIALIZER_HAS_MAPPED_FILE
