// BufferView: a read-only cursor over bytes owned by someone else (a socket's
// receive buffer, a memory-mapped file, a Buffer). Decoding from it copies
// nothing into an intermediate buffer; the bytes must outlive the view.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "error.hpp"

namespace bin_serializer {

class BufferView {
public:
  constexpr BufferView() noexcept = default;
  constexpr BufferView(std::span<const std::byte> bytes) noexcept // NOLINT: implicit by design
      : data_(bytes.empty() ? empty_bytes() : bytes.data()), size_(bytes.size()) {}
  BufferView(const void* data, std::size_t size) noexcept
      : data_(size == 0 ? empty_bytes() : static_cast<const std::byte*>(data)), size_(size) {}

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

  [[nodiscard]] constexpr const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr std::span<const std::byte> bytes() const noexcept {
    return {data_, size_};
  }
  [[nodiscard]] constexpr std::size_t read_position() const noexcept { return rpos_; }
  [[nodiscard]] constexpr std::size_t remaining() const noexcept { return size_ - rpos_; }
  constexpr bool seek(std::size_t pos) noexcept {
    if (pos > size_) return false;
    rpos_ = pos;
    return true;
  }

  [[nodiscard]] constexpr error last_error() const noexcept { return err_; }
  constexpr void set_error(error e) noexcept { err_ = e; }

private:
  // Never null, so a zero-byte memcpy from an empty view is well defined.
  static constexpr const std::byte* empty_bytes() noexcept { return &empty_; }
  static constexpr std::byte empty_{};

  const std::byte* data_ = empty_bytes();
  std::size_t size_ = 0;
  std::size_t rpos_ = 0;
  error err_{};
};

} // namespace bin_serializer
