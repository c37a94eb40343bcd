// Encoding a struct's consecutive fixed-size fields as one run: the output
// makes room for the whole run once and the fields are written through a
// local cursor whose capacity checks fold away (the writer's counterpart of
// read_fields.hpp; which fields qualify is run_layout.hpp's).
//
// Only for outputs with direct access (contiguous_writer::claim); a stream
// writer hands every field to write() as before. The bytes are exactly those
// field-by-field encoding writes.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../format/copy.hpp"
#include "run_layout.hpp"
#include "../cursor/writer.hpp"

namespace bin_serializer::detail {

template <class W, class T>
bool write_value(W& w, const T& value);

template <class Outer>
class run_writer {
public:
  static constexpr options opts = Outer::opts;
  static constexpr bool in_run = true;

  BIN_SERIALIZER_INLINE run_writer(Outer& outer, std::byte* p, std::size_t n) noexcept
      : outer_(outer), cur_(p), end_(p + n) {}

  BIN_SERIALIZER_INLINE bool write_bytes(const void* src, std::size_t n) noexcept {
    if (n > remaining()) [[unlikely]]
      return fail(errc::buffer_full);
    std::memcpy(cur_, src, n);
    cur_ += n;
    return true;
  }
  // N bytes at once (adjacent fields, see write_span).
  template <std::size_t N>
  BIN_SERIALIZER_INLINE bool write_fixed(const void* src) noexcept {
    if (N > remaining()) [[unlikely]]
      return fail(errc::buffer_full);
    copy_fixed<N>(cur_, src);
    cur_ += N;
    return true;
  }
  // No write_length(): run members have no length prefixes.
  BIN_SERIALIZER_INLINE bool reserve(std::size_t n) noexcept { return n <= remaining(); }
  bool fail(errc code) noexcept { return outer_.fail(code); }

  [[nodiscard]] std::size_t remaining() const noexcept {
    return static_cast<std::size_t>(end_ - cur_);
  }
  // The outer cursor is already past the run: count back from its end.
  [[nodiscard]] std::size_t position() const noexcept { return outer_.position() - remaining(); }
  [[nodiscard]] bool finished() const noexcept { return cur_ == end_; }

private:
  Outer& outer_;
  std::byte* cur_;
  std::byte* end_;
};

template <class Outer>
inline constexpr bool is_writer_v<run_writer<Outer>> = true;

template <class W>
concept run_writable = requires(W& w, std::size_t n) {
  { w.claim(n) } -> std::same_as<std::byte*>;
} && !requires { W::in_run; };

template <class W, class Tuple, std::size_t... I>
BIN_SERIALIZER_INLINE bool write_indexed(W& w, const Tuple& fields, std::index_sequence<I...>) {
  return (write_value(w, std::get<I>(fields)) && ...);
}

// Fields [Begin, End) of a run: back-to-back object bytes as one copy.
template <class Layout, class W, class Tuple, std::size_t Begin, std::size_t End>
BIN_SERIALIZER_INLINE bool write_span(W& w, const Tuple& fields) {
  if constexpr (Begin == End) {
    return true;
  } else {
    constexpr std::size_t k = object_bytes_prefix<W::opts, true, Tuple, Begin, End>();
    if constexpr (k >= 2) {
      using idx = decltype(shifted<Begin>(std::make_index_sequence<k>{}));
      const bool ok = fields_adjacent<Layout>(fields, idx{})
                          ? w.template write_fixed<fields_sizeof<Tuple>(idx{})>(
                                std::addressof(std::get<Begin>(fields)))
                          : write_indexed(w, fields, idx{});
      return ok && write_span<Layout, W, Tuple, Begin + k, End>(w, fields);
    } else {
      return write_value(w, std::get<Begin>(fields)) &&
             write_span<Layout, W, Tuple, Begin + 1, End>(w, fields);
    }
  }
}

template <class Layout, class W, class Tuple, std::size_t First>
BIN_SERIALIZER_INLINE bool write_fields_from(W& w, const Tuple& fields) {
  using run = leading_run<W::opts, Tuple, First>;
  if constexpr (First == std::tuple_size_v<Tuple>) {
    return true;
  } else if constexpr (run::count >= 2) {
    std::byte* p = w.claim(run::bytes);
    if (p == nullptr) [[unlikely]]
      return false;
    run_writer<W> rw(w, p, run::bytes);
    // A codec writing fewer bytes than its stated size would leave a gap:
    // a library bug, reported rather than sent.
    if (!(write_span<Layout, run_writer<W>, Tuple, First, First + run::count>(rw, fields) &&
          (rw.finished() || w.fail(errc::invalid_value)))) [[unlikely]]
      return false;
    return write_fields_from<Layout, W, Tuple, First + run::count>(w, fields);
  } else {
    return write_value(w, std::get<First>(fields)) &&
           write_fields_from<Layout, W, Tuple, First + 1>(w, fields);
  }
}

// A struct's fields in order, runs of fixed-size fields claimed at once.
// Layout: aggregate_layout<T> when the fields are all of aggregate T's
// members in order (adjacency then known from the type), else unknown_layout.
template <class Layout, class W, class... Fs>
BIN_SERIALIZER_INLINE bool write_fields(W& w, const Fs&... fields) {
  if constexpr (run_writable<W> && sizeof...(Fs) >= 2) {
    const std::tuple<const Fs&...> refs(fields...);
    return write_fields_from<Layout, W, std::tuple<const Fs&...>, 0>(w, refs);
  } else {
    return (write_value(w, fields) && ...);
  }
}

} // namespace bin_serializer::detail
