// FixedBuffer<N>: N bytes of inline storage with a write size and a read
// position. Never allocates, so it can live on the stack of a hot path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "../error.hpp"

namespace bin_serializer {

template <std::size_t N>
class FixedBuffer {
public:
  static_assert(N > 0, "FixedBuffer<0> can hold nothing; give it a capacity, e.g. FixedBuffer<64>");

  // The storage is left uninitialised on purpose: zeroing N bytes per message
  // would cost more than serializing it. Bytes past size() are never read.
  FixedBuffer() noexcept {}

  // Appends n bytes; false (buffer unchanged, last_error() = buffer_full) if
  // they do not fit.
  bool write(const void* src, std::size_t n) noexcept {
    if (n > N - size_) [[unlikely]] {
      set_error({errc::buffer_full, size_});
      return false;
    }
    if (n != 0) std::memcpy(storage_ + size_, src, n); // src may be null when n == 0
    size_ += n;
    return true;
  }

  // Copies the next n bytes out; false (position unchanged, last_error() =
  // truncated) if fewer than n remain.
  bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - rpos_) [[unlikely]] {
      set_error({errc::truncated, rpos_});
      return false;
    }
    if (n != 0) std::memcpy(dst, storage_ + rpos_, n); // dst may be null when n == 0
    rpos_ += n;
    return true;
  }

  [[nodiscard]] std::byte* data() noexcept { return storage_; }
  [[nodiscard]] const std::byte* data() const noexcept { return storage_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {storage_, size_}; }

  [[nodiscard]] std::size_t read_position() const noexcept { return rpos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return size_ - rpos_; }
  bool seek(std::size_t pos) noexcept {
    if (pos > size_) return false;
    rpos_ = pos;
    return true;
  }

  // Size, read position and last error back to zero. The read position and
  // the error's code (a word of its own) are one aligned 16-byte block, one
  // store, and the size's store is dead when a write follows; last_error()
  // reads the offset of an errc::ok as 0.
  void clear() noexcept {
    size_ = 0;
    rpos_ = 0;
    code_ = 0;
  }

  // The capacity is fixed: true if n bytes fit, otherwise false with
  // last_error() = buffer_full.
  bool reserve(std::size_t n) noexcept {
    if (n <= N) return true;
    set_error({errc::buffer_full, size_});
    return false;
  }

  // Declares the first n bytes (n <= N) as written; see ContiguousWritableBuffer.
  void set_size(std::size_t n) noexcept {
    size_ = n;
    if (rpos_ > n) rpos_ = n;
  }

  // set_size() for a size that only grew (n >= size()): nothing to clamp.
  void commit_size(std::size_t n) noexcept { size_ = n; }

  // {errc::ok, 0} while no failure is recorded (clear() resets only the code).
  [[nodiscard]] error last_error() const noexcept {
    if (code_ == 0) return error{};
    error e = err_;
    e.code = static_cast<errc>(code_);
    return e;
  }
  void set_error(error e) noexcept {
    err_ = e;
    code_ = static_cast<std::uint64_t>(e.code);
  }

private:
  std::size_t rpos_ = 0;
  std::uint64_t code_ = 0; // last_error().code as a word, next to rpos_ (see clear())
  std::size_t size_ = 0;
  error err_{}; // the rest of last_error()
  alignas(16) std::byte storage_[N];
};

} // namespace bin_serializer
