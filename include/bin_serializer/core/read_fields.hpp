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
// the input advances by what they took (one with a single varint is read in
// short form first: cursor/run_reader.hpp). Anything else, user codecs included,
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
#include "../format/copy.hpp"
#include "../cursor/run_reader.hpp"
#include "run_layout.hpp"

namespace bin_serializer::detail {

template <class R, class T>
bool read_value(R& r, T& value);

// Whether a run of fields [Begin, End) needs its reads checked (run_reader).
template <options Opts, class Tuple, std::size_t Begin, std::size_t End>
consteval bool run_needs_checks() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return !(presizable<Opts, std::remove_cvref_t<std::tuple_element_t<Begin + J, Tuple>>>() &&
             ...);
  }(std::make_index_sequence<End - Begin>{});
}

// How many leaves of varying size the fields [Begin, End) hold.
template <options Opts, class Tuple, std::size_t Begin, std::size_t End>
consteval std::size_t run_varying_leaves() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    return (
        shape<Opts, std::remove_cvref_t<std::tuple_element_t<Begin + J, Tuple>>>::varying_leaves() +
        ... + 0);
  }(std::make_index_sequence<End - Begin>{});
}

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
    if constexpr (run::exact) {
      const std::size_t at = r.position();
      using run_reader_t =
          run_reader<R, run_needs_checks<R::opts, Tuple, First, First + run::count>()>;
      const std::byte* p = r.take(run::bytes);
      run_reader_t rr(r, p, run::bytes, at);
      // The sizes are the codecs' own; a mismatch would be a library bug,
      // reported rather than letting the next field start at the wrong byte.
      ok = read_span<Layout, run_reader_t, Tuple, First, First + run::count>(rr, fields) &&
           (rr.finished() || r.fail(errc::invalid_value, rr.position()));
    } else {
      // Fields of varying size: the input moves on by what they took.
      constexpr bool checks = run_needs_checks<R::opts, Tuple, First, First + run::count>();
      auto span = [&]<class RR>(RR& rr) BIN_SERIALIZER_LAMBDA_INLINE {
        return read_span<Layout, RR, Tuple, First, First + run::count>(rr, fields);
      };
      if constexpr (run_varying_leaves<R::opts, Tuple, First, First + run::count>() == 1)
        // A run with one varint (a code, a speed next to floats) is read in
        // short form first (cursor/run_reader.hpp): when it takes one byte,
        // every field and what follows sit at constant offsets. With more,
        // the chance that one is wide grows and each abandoned pass costs
        // the fields before it (a Monster's two 16-bit stats, a Car's ids,
        // timestamps and engine figures): those runs are read once.
        ok = read_short_first<checks>(r, run::bytes, span);
      else
        ok = read_present<checks>(r, run::bytes, span);
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
// Layout: as for write_fields (write_fields.hpp).
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
