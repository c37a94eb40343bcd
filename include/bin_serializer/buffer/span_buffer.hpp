// SpanBuffer: serialize into memory the caller owns (a std::span<std::byte>:
// a socket's send buffer, a slot in a ring, a shared-memory region, the gRPC
// slice or zmq::message_t a transport will send, which saves the copy from a
// Buffer into the transport's storage).
//
//   std::byte out[256];
//   bin_serializer::SpanBuffer buf(out);
//   if (!serialize(buf, tick)) ...   // buf.last_error().code == errc::buffer_full
//   send(sock, buf.data(), buf.size(), 0);
//
// Its capacity is the span's size and never grows: a value that does not fit
// fails with buffer_full, leaves size() unchanged and writes nothing past the
// end of the span. It is a ContiguousWritableBuffer (the fast path) and can
// be read back like a Buffer. The memory must outlive the SpanBuffer.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "../error.hpp"

namespace bin_serializer {

class SpanBuffer {
public:
  constexpr SpanBuffer() noexcept = default;
  explicit SpanBuffer(std::span<std::byte> memory) noexcept
      : data_(memory.data()), cap_(memory.size()) {}
  SpanBuffer(void* data, std::size_t capacity) noexcept
      : data_(static_cast<std::byte*>(data)), cap_(data == nullptr ? 0 : capacity) {}

  // Appends n bytes; false (nothing written, last_error() = buffer_full) if
  // they do not fit.
  bool write(const void* src, std::size_t n) noexcept {
    if (n > cap_ - size_) [[unlikely]] {
      err_ = {errc::buffer_full, size_};
      return false;
    }
    if (n != 0) std::memcpy(data_ + size_, src, n);
    size_ += n;
    return true;
  }

  // Copies the next n written bytes out; false (position unchanged,
  // truncated) if fewer remain.
  bool read(void* dst, std::size_t n) noexcept {
    if (n > size_ - rpos_) [[unlikely]] {
      err_ = {errc::truncated, rpos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, data_ + rpos_, n);
    rpos_ += n;
    return true;
  }

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] bool full() const noexcept { return size_ == cap_; }
  // The bytes written so far.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

  [[nodiscard]] std::size_t read_position() const noexcept { return rpos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return size_ - rpos_; }
  bool seek(std::size_t pos) noexcept {
    if (pos > size_) return false;
    rpos_ = pos;
    return true;
  }

  // True if n bytes fit in the span; otherwise false with buffer_full.
  bool reserve(std::size_t n) noexcept {
    if (n <= cap_) return true;
    err_ = {errc::buffer_full, size_};
    return false;
  }

  // Declares the first n bytes (n <= capacity()) written; see
  // ContiguousWritableBuffer.
  void set_size(std::size_t n) noexcept {
    size_ = n;
    if (rpos_ > n) rpos_ = n;
  }
  void commit_size(std::size_t n) noexcept { size_ = n; }

  // Size, read position and last error back to zero (the memory is kept).
  void clear() noexcept {
    size_ = 0;
    rpos_ = 0;
    err_.code = errc::ok;
    err_.offset = 0;
  }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

private:
  std::byte* data_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t size_ = 0;
  std::size_t rpos_ = 0;
  error err_{};
};

} // namespace bin_serializer
