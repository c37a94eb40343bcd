// Buffer: heap-backed, growable byte buffer with its own read position.
//
// The hot path (capacity check + memcpy) is inline; growth lives in
// src/buffer.cpp. Storage comes from nothrow operator new, so an allocation
// failure is a false return even in code compiled with -fno-exceptions, and a
// global operator new replacement (an allocation counter, a test's failure
// injector) sees every allocation.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "../config.hpp"
#include "../error.hpp"

namespace bin_serializer {

class Buffer {
public:
  Buffer() noexcept = default;
  Buffer(Buffer&& other) noexcept { swap(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer tmp(static_cast<Buffer&&>(other));
    swap(tmp);
    return *this;
  }
  // Copying allocates, and a constructor cannot report failure without
  // exceptions; use assign(other.bytes()) instead.
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  // Appends n bytes; false (buffer unchanged, last_error() = out_of_memory) if
  // the storage cannot grow.
  bool write(const void* src, std::size_t n) noexcept {
    if (n > cap_ - size_) [[unlikely]]
      return write_slow(src, n);
    if (n != 0) std::memcpy(data_ + size_, src, n); // src may be null when n == 0
    size_ += n;
    return true;
  }

  // Copies the next n bytes out; false (position unchanged, last_error() =
  // truncated) if fewer than n remain.
  bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - rpos_) [[unlikely]] {
      err_ = {errc::truncated, rpos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, data_ + rpos_, n); // dst may be null when n == 0
    rpos_ += n;
    return true;
  }

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
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

  // Empties the buffer: size, read position and last error reset; the storage
  // is kept so the next message does not allocate. Views decoded from the
  // bytes are invalid from here on (debug builds overwrite them with 0xDD).
  // Two stores: size and read position are adjacent (one 16-byte store), and
  // only the error's code is reset, last_error() reading the offset of an
  // errc::ok as 0.
  void clear() noexcept {
#if BIN_SERIALIZER_DEBUG
    poison(data_, size_);
#endif
    size_ = 0;
    rpos_ = 0;
    err_.code = errc::ok;
  }

  // Makes capacity() >= n. False (nothing changed, last_error() =
  // out_of_memory) if the allocation fails.
  bool reserve(std::size_t n) noexcept { return n <= cap_ || reallocate(n); }

  // Replaces the contents with a copy of bytes; false if allocation fails.
  bool assign(std::span<const std::byte> bytes) noexcept;

  // Declares the first n bytes (n <= capacity()) as written. The serializer
  // uses it to commit bytes written through data() and to roll back a failed
  // call; the read position is clamped to the new size.
  void set_size(std::size_t n) noexcept {
    size_ = n;
    if (rpos_ > n) rpos_ = n;
  }

  // set_size() for a size that only grew (n >= size()): the read position
  // cannot exceed it, so there is nothing to clamp. Used by serialize().
  void commit_size(std::size_t n) noexcept { size_ = n; }

  // {errc::ok, 0} while no failure is recorded (clear() resets only the code).
  [[nodiscard]] error last_error() const noexcept { return err_.code == errc::ok ? error{} : err_; }
  void set_error(error e) noexcept { err_ = e; }

  void swap(Buffer& other) noexcept;

private:
  bool write_slow(const void* src, std::size_t n) noexcept;
  bool reallocate(std::size_t new_capacity) noexcept;

  // Never null, so memcpy of zero bytes is always well defined: an empty
  // Buffer points at a static byte it never writes to.
  std::byte* data_ = empty_storage();
  std::size_t size_ = 0;
  std::size_t rpos_ = 0; // next to size_: clear() resets both with one store
  error err_{};          // its code after them: clear()'s second store
  std::size_t cap_ = 0;

  static std::byte* empty_storage() noexcept;
#if BIN_SERIALIZER_DEBUG
  // Overwrites released bytes so a stale view shows garbage, not old data.
  static void poison(std::byte* p, std::size_t n) noexcept {
    if (n != 0) std::memset(p, 0xDD, n);
  }
#endif
};

} // namespace bin_serializer
