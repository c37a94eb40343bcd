// MappedFile: a buffer whose bytes are a memory-mapped file. POSIX only
// (check BIN_SERIALIZER_HAS_MAPPED_FILE).
//
//   bin_serializer::MappedFile log;
//   if (!log.open("ticks.log", bin_serializer::MappedFile::mode::create)) ...
//   for (const Tick& t : ticks) serialize(log, t);   // memcpy into the mapping
//   log.close();                                       // file size = log.size()
//
// It models BufferLike and both Contiguous* concepts, so serialize() and
// deserialize() take the same fast path as with Buffer: a value is written
// straight into the page cache, and a failed call leaves size() unchanged.
//
// Growth: the file is extended with posix_fallocate (disk blocks are reserved
// up front, so a full disk is a false return now, not a SIGBUS on a later
// store) and remapped (mremap on Linux, munmap + mmap elsewhere); data()
// changes on growth. Capacity grows geometrically, so the file on disk is
// larger than size() until close() truncates it to size().
//
// Durability: sync() is msync(MS_SYNC) of the written bytes. Without it the
// kernel writes pages back on its own schedule; after a process crash the
// written bytes survive (they are in the page cache) but the file keeps its
// capacity-sized tail of zero bytes, because close() never ran. After a power
// loss only bytes before the last successful sync() are certain. A log format
// should therefore let a reader find its end (a count, framing, or a
// terminator) rather than rely on the file size.
//
// One writer per file: the writable modes take an exclusive advisory lock
// (flock) before the file is truncated or mapped, held until close(). A
// second writable open of the same file, in this process or another, fails
// (io_error, errno EWOULDBLOCK) and changes nothing, instead of truncating
// the file under the first one's mapping. read_only takes no lock, so
// readers may map a file while it is written. Another program that ignores
// the lock and truncates the file makes access to the lost pages raise
// SIGBUS: the file must be owned by this MappedFile.
//
// Every failure is a false return, last_error() = {io_error or
// out_of_memory, size()}; errno is left as the failing call set it.
#pragma once

#if defined(__unix__) || defined(__APPLE__)

#include <cstddef>
#include <cstring>
#include <span>

#include "../error.hpp"

#define BIN_SERIALIZER_HAS_MAPPED_FILE 1

namespace bin_serializer {

class MappedFile {
public:
  enum class mode {
    create,    // create or truncate (once locked); read + write
    append,    // open an existing file (created if missing, locked); size() = its length
    read_only, // open an existing file; size() = its length; write() and reserve() fail
  };

  MappedFile() noexcept = default;
  MappedFile(MappedFile&& other) noexcept { swap(other); }
  MappedFile& operator=(MappedFile&& other) noexcept {
    MappedFile tmp(static_cast<MappedFile&&>(other));
    swap(tmp);
    return *this;
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  // Closes (see close()); a failure here cannot be reported, so call close().
  ~MappedFile() { (void)close(); }

  // Opens path (closing any file open before). False with last_error() =
  // io_error if the file cannot be opened, locked (writable modes), sized or
  // mapped; the file is then as it was.
  bool open(const char* path, mode m) noexcept;

  // Unmaps, truncates the file to size() (writable modes) and closes it.
  // False (io_error) if the truncation or close failed; the object is closed
  // either way. Closing a closed file is a no-op returning true.
  bool close() noexcept;

  // msync(MS_SYNC) of the first size() bytes: when it returns true they are on
  // the device (as far as the file system guarantees). The file's length is
  // only settled by close().
  bool sync() noexcept;

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] bool writable() const noexcept { return writable_; }

  // Appends n bytes, growing the file if needed; false (nothing written) if
  // the file cannot grow or is read-only.
  bool write(const void* src, std::size_t n) noexcept {
    if (n > cap_ - size_) [[unlikely]]
      return write_slow(src, n);
    if (n != 0) std::memcpy(data_ + size_, src, n);
    size_ += n;
    return true;
  }

  // Copies the next n bytes out; false (position unchanged, truncated) if
  // fewer remain.
  bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - rpos_) [[unlikely]] {
      err_ = {errc::truncated, rpos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, data_ + rpos_, n);
    rpos_ += n;
    return true;
  }

  // In read_only mode the mapping is not writable: never store through data().
  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  // Bytes that may be written at data() without growing; equals size() in
  // read_only mode.
  [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

  [[nodiscard]] std::size_t read_position() const noexcept { return rpos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return size_ - rpos_; }
  bool seek(std::size_t pos) noexcept {
    if (pos > size_) return false;
    rpos_ = pos;
    return true;
  }

  // Makes capacity() >= n by growing the file and the mapping. False
  // (nothing changed) if that fails, or if the file is read-only or closed:
  // then every call fails with io_error, whatever n is.
  bool reserve(std::size_t n) noexcept { return (n <= cap_ && writable_) || grow(n); }

  // Declares the first n bytes (n <= capacity()) written; see
  // ContiguousWritableBuffer.
  void set_size(std::size_t n) noexcept {
    size_ = n;
    if (rpos_ > n) rpos_ = n;
    if (!writable_) cap_ = n; // read-only: nothing past size() may be written
  }

  // set_size() for a size that only grew (n >= size()): nothing to clamp.
  // serialize() uses it to commit an append where the core supports it.
  void commit_size(std::size_t n) noexcept { size_ = n; }

  // Size and read position to zero (the next close() truncates the file to
  // whatever is written after this); capacity is kept. In read_only mode the
  // mapped bytes become unreachable and capacity() drops to 0, so a later
  // write() or serialize() fails with io_error instead of storing into the
  // read-only mapping.
  void clear() noexcept {
    size_ = 0;
    rpos_ = 0;
    err_.code = errc::ok;
    err_.offset = 0;
    if (!writable_) cap_ = 0;
  }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

  void swap(MappedFile& other) noexcept;

private:
  bool write_slow(const void* src, std::size_t n) noexcept;
  bool grow(std::size_t min_capacity) noexcept;
  bool remap(std::size_t new_capacity) noexcept;
  bool fail(errc code) noexcept {
    err_ = {code, size_};
    return false;
  }

  static std::byte* empty_storage() noexcept;

  std::byte* data_ = empty_storage(); // never null, as in Buffer
  std::size_t size_ = 0;
  // Writable bytes at data_: the mapping's length in the writable modes; in
  // read_only mode always size() (the mapping is never written, so write()'s
  // fast path must never see room).
  std::size_t cap_ = 0;
  std::size_t mapped_ = 0; // bytes mapped == the file's length while open
  std::size_t rpos_ = 0;
  int fd_ = -1;
  bool writable_ = false;
  error err_{};
};

} // namespace bin_serializer

#endif // POSIX
