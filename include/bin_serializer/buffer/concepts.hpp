// What serialize() and deserialize() need from a buffer.
//
// The minimal contract is the design document's: write(p, n) and read(p, n),
// each returning bool. Any type that has them works, with no virtual calls.
//
// Buffers that also expose their bytes directly (the Contiguous* concepts) get
// the fast path: the serializer keeps its cursor in registers instead of calling
// write() per field, commits the new size once at the end, and on failure simply
// does not commit, so the buffer is left exactly as it was. Buffer, FixedBuffer
// and BufferView all model them; a memory-mapped or pooled buffer can too.
#pragma once

#include <concepts>
#include <cstddef>

#include "../error.hpp"

namespace bin_serializer {

// Output side: append n bytes, false when they do not fit.
template <class B>
concept WritableBuffer = requires(B& b, const void* src, std::size_t n) {
  { b.write(src, n) } -> std::same_as<bool>;
};

// Input side: consume n bytes, false when fewer remain.
template <class B>
concept ReadableBuffer = requires(B& b, void* dst, std::size_t n) {
  { b.read(dst, n) } -> std::same_as<bool>;
};

// The design document's concept: a buffer that can be both written and read.
template <class B>
concept BufferLike = WritableBuffer<B> && ReadableBuffer<B>;

// Direct output access:
//   data()        first byte of the storage
//   size()        bytes written so far
//   capacity()    bytes of storage available without reserve()
//   reserve(n)    make capacity() >= n, keeping the first size() bytes; false if it cannot
//   set_size(n)   declare the first n bytes written (n <= capacity()); used to commit
//                 bytes written through data() and to roll back a failed call
template <class B>
concept ContiguousWritableBuffer = WritableBuffer<B> && requires(B& b, const B& cb, std::size_t n) {
  { b.data() } -> std::same_as<std::byte*>;
  { cb.size() } -> std::same_as<std::size_t>;
  { cb.capacity() } -> std::same_as<std::size_t>;
  { b.reserve(n) } -> std::same_as<bool>;
  b.set_size(n);
};

// Direct input access:
//   data(), size()     the readable bytes are [data(), data() + size())
//   read_position()    offset of the next byte read()
//   seek(pos)          move the read position (pos <= size()); false if out of range
template <class B>
concept ContiguousReadableBuffer = ReadableBuffer<B> && requires(B& b, const B& cb, std::size_t n) {
  { cb.data() } -> std::convertible_to<const std::byte*>;
  { cb.size() } -> std::same_as<std::size_t>;
  { cb.read_position() } -> std::same_as<std::size_t>;
  { b.seek(n) } -> std::same_as<bool>;
};

// Buffers that keep the last failure (all of the library's do). Optional for
// custom buffers: without it a failed call still returns false, only the reason
// is not kept.
template <class B>
concept ErrorRecordingBuffer = requires(B& b, const B& cb, error e) {
  b.set_error(e);
  { cb.last_error() } -> std::same_as<error>;
};

} // namespace bin_serializer
