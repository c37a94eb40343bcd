// Decoding a struct's consecutive fixed-size fields as one run: one bounds
// check for the run instead of one per field, and a cursor that stays in a
// register while the run's fields are copied out.
//
// Why: a struct's fields are decoded through the reader object, which lives in
// memory once the struct's decoder is an out-of-line function; every field then
// reloads the cursor, compares it with the end and stores it back. A run of
// scalars and trivially copyable members (Car's leading fields, a Monster's
// position and stats) has a size known at compile time, so after a single
// check of that size the fields are decoded from a local run_reader whose
// bounds checks fold away. Value checks (bool, ranged enums) still run.
//
// Members whose encoded size is known exactly from the type join a run:
// scalars, block copies, C and std arrays and structs made of those, chrono
// values and bitsets; so do bounded members whose size the library computes
// (a varint, an optional of a scalar), counted at their largest, after which
// the input advances by what they took. Anything else, user codecs included,
// is decoded as before. When the input holds fewer bytes than the run's
// largest encoding, the fields are decoded one by one, so the error and its
// offset are exactly those of the field that does not fit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../error.hpp"
#include "../options.hpp"
#include "../config.hpp"
#include "classify.hpp"
#include "../cursor/reader.hpp"
#include "../cursor/copy.hpp"
#include "run_layout.hpp"

namespace bin_serializer::detail {

template <class R, class T>
bool read_value(R& r, T& value);

// A reader over the run's bytes, all present (checked once by the caller).
// Failures (a bad value inside the run) are recorded in the outer reader with
// absolute offsets.
// Checked: whether every read re-checks the run's remaining bytes. Runs made
// only of types whose sizes the library computes (presizable) cannot read
// past their end, so only debug builds check them; a run holding a user
// codec's exact_size is checked every time.
template <class Outer, bool Checked = true>
class run_reader {
public:
  static constexpr options opts = Outer::opts;
  static constexpr bool contiguous = true;
  static constexpr bool in_run = true;

  BIN_SERIALIZER_INLINE run_reader(Outer& outer, const std::byte* p, std::size_t n,
                                   std::size_t at) noexcept
      : outer_(outer), start_(p), cur_(p), end_(p + n), at_(at) {}

  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if (!fits(n)) [[unlikely]]
      return fail(errc::truncated, position());
    std::memcpy(dst, cur_, n);
    cur_ += n;
    return true;
  }
  BIN_SERIALIZER_INLINE const std::byte* take(std::size_t n) noexcept {
    if (!fits(n)) [[unlikely]] {
      fail(errc::truncated, position());
      return nullptr;
    }
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }
  // N bytes at once (adjacent fields, see read_span).
  template <std::size_t N>
  BIN_SERIALIZER_INLINE bool read_fixed(void* dst) noexcept {
    if (!fits(N)) [[unlikely]]
      return fail(errc::truncated, position());
    copy_fixed<N>(dst, cur_);
    cur_ += N;
    return true;
  }
  // No read_length(): run members have no length prefixes.
  bool enter() noexcept { return outer_.enter(); }
  void leave() noexcept { outer_.leave(); }

  [[nodiscard]] BIN_SERIALIZER_INLINE std::size_t remaining() const noexcept {
    return static_cast<std::size_t>(end_ - cur_);
  }
  [[nodiscard]] BIN_SERIALIZER_INLINE std::size_t position() const noexcept {
    return at_ + static_cast<std::size_t>(cur_ - start_);
  }
  [[nodiscard]] bool finished() const noexcept { return cur_ == end_; }
  [[nodiscard]] std::size_t consumed() const noexcept {
    return static_cast<std::size_t>(cur_ - start_);
  }
  // Whether n more bytes are present: known without looking when the run's
  // largest encoding was checked once for all (has_room in reader.hpp).
  static constexpr bool room_proven = !Checked && !BIN_SERIALIZER_DEBUG;

private:
  BIN_SERIALIZER_INLINE bool fits(std::size_t n) const noexcept {
    if constexpr (Checked || BIN_SERIALIZER_DEBUG)
      return n <= remaining();
    else
      return true;
  }

public:
  bool fail(errc code, std::size_t at) noexcept { return outer_.fail(code, at); }

private:
  Outer& outer_;
  const std::byte* start_;
  const std::byte* cur_;
  const std::byte* end_;
  std::size_t at_;
};

template <class Outer, bool Checked>
inline constexpr bool is_reader_v<run_reader<Outer, Checked>> = true;

// Whether a run of fields [Begin, End) needs its reads checked (run_reader).
template <options Opts, class Tuple, std::size_t Begin, std::size_t End>
consteval bool run_needs_checks() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return !(presizable<Opts, std::remove_cvref_t<std::tuple_element_t<Begin + J, Tuple>>>() &&
             ...);
  }(std::make_index_sequence<End - Begin>{});
}

template <class R>
concept run_capable = R::contiguous && !requires { R::in_run; };

template <class R, class Tuple, std::size_t... I>
BIN_SERIALIZER_INLINE bool read_indexed(R& r, Tuple& fields, std::index_sequence<I...>) {
  return (read_value(r, std::get<I>(fields)) && ...);
}

template <class Layout, class R, class Tuple, std::size_t First>
BIN_SERIALIZER_INLINE bool read_fields_from(R& r, Tuple& fields);

// Fields [Begin, End) of a run: back-to-back object bytes as one copy.
template <class Layout, class R, class Tuple, std::size_t Begin, std::size_t End>
BIN_SERIALIZER_INLINE bool read_span(R& r, Tuple& fields) {
  if constexpr (Begin == End) {
    return true;
  } else {
    constexpr std::size_t k = object_bytes_prefix<R::opts, false, Tuple, Begin, End>();
    if constexpr (k >= 2) {
      using idx = decltype(shifted<Begin>(std::make_index_sequence<k>{}));
      const bool ok = fields_adjacent<Layout>(fields, idx{})
                          ? r.template read_fixed<fields_sizeof<Tuple>(idx{})>(
                                std::addressof(std::get<Begin>(fields)))
                          : read_indexed(r, fields, idx{});
      return ok && read_span<Layout, R, Tuple, Begin + k, End>(r, fields);
    } else {
      return read_value(r, std::get<Begin>(fields)) &&
             read_span<Layout, R, Tuple, Begin + 1, End>(r, fields);
    }
  }
}

// The fields of one run, then the rest.
template <class Layout, class R, class Tuple, std::size_t First>
BIN_SERIALIZER_INLINE bool read_run(R& r, Tuple& fields) {
  using run = leading_run<R::opts, Tuple, First, true>;
  bool ok;
  if (r.remaining() < run::bytes) [[unlikely]] {
    // Not all there: field by field, for the exact error.
    ok = read_indexed(r, fields, typename run::indices{});
  } else {
    const std::size_t at = r.position();
    using run_reader_t =
        run_reader<R, run_needs_checks<R::opts, Tuple, First, First + run::count>()>;
    if constexpr (run::exact) {
      const std::byte* p = r.take(run::bytes);
      run_reader_t rr(r, p, run::bytes, at);
      // The sizes are the codecs' own; a mismatch would be a library bug,
      // reported rather than letting the next field start at the wrong byte.
      ok = read_span<Layout, run_reader_t, Tuple, First, First + run::count>(rr, fields) &&
           (rr.finished() || r.fail(errc::invalid_value, rr.position()));
    } else {
      // Fields of varying size: the input moves on by what they took.
      run_reader_t rr(r, take_counted(r, 0), run::bytes, at);
      ok = read_span<Layout, run_reader_t, Tuple, First, First + run::count>(rr, fields);
      (void)take_counted(r, rr.consumed());
    }
  }
  // One call site for the fields after the run, so they are inlined once.
  return ok && read_fields_from<Layout, R, Tuple, First + run::count>(r, fields);
}

template <class Layout, class R, class Tuple, std::size_t First>
BIN_SERIALIZER_INLINE bool read_fields_from(R& r, Tuple& fields) {
  if constexpr (First == std::tuple_size_v<Tuple>)
    return true;
  else if constexpr (leading_run<R::opts, Tuple, First, true>::count >= 2)
    return read_run<Layout, R, Tuple, First>(r, fields);
  else
    return read_value(r, std::get<First>(fields)) &&
           read_fields_from<Layout, R, Tuple, First + 1>(r, fields);
}

// A struct's fields in order, runs of fixed-size fields checked once.
// Layout: as for write_fields (write_runs.hpp).
template <class Layout, class R, class... Fs>
BIN_SERIALIZER_INLINE bool read_fields(R& r, Fs&... fields) {
  if constexpr (run_capable<R> && sizeof...(Fs) >= 2) {
    std::tuple<Fs&...> refs(fields...);
    return read_fields_from<Layout, R, std::tuple<Fs&...>, 0>(r, refs);
  } else {
    return (read_value(r, fields) && ...);
  }
}

} // namespace bin_serializer::detail
