// SpanBuffer: an output buffer over memory someone else allocated and owns.
//
// Transports hand out the memory a message will be sent from: a gRPC slice, a
// zmq::message_t, a slot of a shared-memory ring. Serializing straight into it
// saves the copy from a Buffer into the transport's storage:
//
//   zmq::message_t msg(message_header_size + serialized_size<portable>(tick));
//   SpanBuffer out(msg.data(), msg.size());
//   serialize_message<portable>(out, tick);   // out.size() == msg.size()
//
// The capacity is fixed (like FixedBuffer<N>, but N chosen at run time): a
// value that does not fit fails with errc::buffer_full and leaves the bytes
// before size() as they were. It never allocates and never reads.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "error.hpp"

namespace bin_serializer {

class SpanBuffer {
public:
  SpanBuffer() noexcept = default;
  SpanBuffer(void* data, std::size_t capacity) noexcept
      : data_(static_cast<std::byte*>(data)), cap_(data == nullptr ? 0 : capacity) {}
  explicit SpanBuffer(std::span<std::byte> storage) noexcept
      : SpanBuffer(storage.data(), storage.size()) {}

  // Appends n bytes; false (buffer unchanged, last_error() = buffer_full) if
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

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }
  [[nodiscard]] bool full() const noexcept { return size_ == cap_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

  // The storage cannot grow: true if n bytes fit, otherwise false with
  // last_error() = buffer_full.
  bool reserve(std::size_t n) noexcept {
    if (n <= cap_) return true;
    err_ = {errc::buffer_full, size_};
    return false;
  }

  // Declares the first n bytes (n <= capacity()) as written.
  void set_size(std::size_t n) noexcept { size_ = n; }
  void commit_size(std::size_t n) noexcept { size_ = n; }

  void clear() noexcept {
    size_ = 0;
    err_ = {};
  }

  [[nodiscard]] error last_error() const noexcept { return err_; }
  void set_error(error e) noexcept { err_ = e; }

private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  error err_{};
};

} // namespace bin_serializer
