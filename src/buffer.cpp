// The cold half of Buffer: allocation, growth and release. Compiled once, so
// the inline write() stays a compare and a memcpy in the caller.
#include <bin_serializer/buffer/buffer.hpp>

#include <algorithm>
#include <limits>
#include <new>

namespace bin_serializer {

namespace {
// First allocation size: most messages fit, so the second write rarely grows.
constexpr std::size_t min_capacity = 64;
std::byte empty_byte;
} // namespace

std::byte* Buffer::empty_storage() noexcept { return &empty_byte; }

Buffer::~Buffer() {
  if (cap_ != 0) {
#if BIN_SERIALIZER_DEBUG
    poison(data_, size_);
#endif
    ::operator delete(data_);
  }
}

void Buffer::swap(Buffer& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(cap_, other.cap_);
  std::swap(rpos_, other.rpos_);
  std::swap(err_, other.err_);
}

bool Buffer::reallocate(std::size_t new_capacity) noexcept {
  auto* fresh = static_cast<std::byte*>(::operator new(new_capacity, std::nothrow));
  if (fresh == nullptr) {
    err_ = {errc::out_of_memory, size_};
    return false;
  }
  std::memcpy(fresh, data_, size_);
  if (cap_ != 0) {
#if BIN_SERIALIZER_DEBUG
    // Views into the old storage are now dangling: under ASan reading them is
    // a heap-use-after-free report; elsewhere they at least read 0xDD until
    // the allocator reuses the block.
    poison(data_, size_);
#endif
    ::operator delete(data_);
  }
  data_ = fresh;
  cap_ = new_capacity;
  return true;
}

bool Buffer::write_slow(const void* src, std::size_t n) noexcept {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (n > max - size_) {
    err_ = {errc::out_of_memory, size_};
    return false;
  }
  const std::size_t needed = size_ + n;
  // Geometric growth keeps appends amortised O(1); fall back to the exact size
  // when doubling itself is what fails.
  const std::size_t doubled = cap_ > max / 2 ? max : cap_ * 2;
  const std::size_t target = std::max({needed, doubled, min_capacity});
  if (!reallocate(target) && (target == needed || !reallocate(needed))) return false;
  if (n != 0) std::memcpy(data_ + size_, src, n);
  size_ += n;
  return true;
}

bool Buffer::assign(std::span<const std::byte> bytes) noexcept {
  if (!reserve(bytes.size())) return false;
  if (!bytes.empty()) std::memmove(data_, bytes.data(), bytes.size()); // may be our own bytes
  size_ = bytes.size();
  rpos_ = 0;
  return true;
}

} // namespace bin_serializer
