// Which struct fields can be encoded or decoded as one run of fixed-size
// bytes (see read_fields.hpp for decoding, write_fields.hpp for encoding): the
// members whose encoded size is known exactly from the type, and how many of
// a struct's leading fields form a run.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "shape.hpp"
#include "validate.hpp"

namespace bin_serializer::detail {

// ---- which types may be written unchecked -----------------------------------
//
// A codec takes part by stating .trusted_size in its facts
// (core/codec_facts.hpp), next to its exact size<Opts>(): true only when
// size<Opts>() is exact and write() stores through the writer it is given
// (recursing into elements with serialize_field). The library's own codecs
// do; a user codec never needs to.

template <options Opts, class T>
consteval bool presizable() {
  return shape<Opts, T>::presizable();
}

// The encoded size of T if it may join a run, else 0. Writing needs it exact
// (the run is claimed at once). Reading also takes a bounded T whose size the
// library computes, at its largest (a varint): a run is then decoded without
// bounds checks once its largest encoding is known to be present, and the
// input advances by what the fields actually took. Not a T holding an
// evolvable struct: its largest encoding is this version's, and a newer
// writer's is longer (classify.hpp, holds_evolvable).
template <options Opts, class T, bool Bounded = false>
consteval std::size_t run_size() {
  using S = shape<Opts, std::remove_cvref_t<T>>;
  if constexpr (Bounded && S::run_size() == 0 && S::bounded() && S::presizable() &&
                !holds_evolvable<Opts, std::remove_cvref_t<T>>)
    return S::max_size();
  else
    return S::run_size();
}

// How many of the leading types join one run (0 or 1: no run worth making).
template <options Opts, bool Bounded, class... Ts>
consteval std::size_t run_length() {
  const std::size_t sizes[] = {run_size<Opts, Ts, Bounded>()..., 0};
  std::size_t n = 0;
  while (n < sizeof...(Ts) && sizes[n] != 0) ++n;
  return n;
}
template <options Opts, class... Ts>
consteval std::size_t leading_run_length() {
  return run_length<Opts, false, Ts...>();
}

template <options Opts, bool Bounded, class... Ts>
consteval std::size_t leading_run_bytes(std::size_t count) {
  const std::size_t sizes[] = {run_size<Opts, Ts, Bounded>()..., 0};
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) total += sizes[i];
  return total;
}

// Whether every one of the leading `count` types has one size (the run's
// bytes are then exact, not a bound).
template <options Opts, class... Ts>
consteval bool leading_run_exact(std::size_t count) {
  const std::size_t sizes[] = {run_size<Opts, Ts>()..., 0};
  for (std::size_t i = 0; i < count; ++i)
    if (sizes[i] == 0) return false;
  return true;
}

// Indices Offset, Offset + 1, ...
template <std::size_t Offset, std::size_t... I>
constexpr auto shifted(std::index_sequence<I...>) {
  return std::index_sequence<(Offset + I)...>{};
}

// The run that starts at field First of a tuple of field references: how
// many fields it spans (0 or 1: no run worth making), its encoded bytes (with
// Bounded, for reading: at most), whether those are exact, and the fields'
// indices.
template <options Opts, class Tuple, std::size_t First, bool Bounded = false>
struct leading_run {
private:
  static constexpr auto rest = std::make_index_sequence<std::tuple_size_v<Tuple> - First>{};

public:
  static constexpr std::size_t count = []<std::size_t... I>(std::index_sequence<I...>) {
    return run_length<Opts, Bounded, std::tuple_element_t<First + I, Tuple>...>();
  }(rest);
  static constexpr std::size_t bytes = []<std::size_t... I>(std::index_sequence<I...>) {
    return leading_run_bytes<Opts, Bounded, std::tuple_element_t<First + I, Tuple>...>(count);
  }(rest);
  static constexpr bool exact = []<std::size_t... I>(std::index_sequence<I...>) {
    return leading_run_exact<Opts, std::tuple_element_t<First + I, Tuple>...>(count);
  }(rest);
  using indices = decltype(shifted<First>(std::make_index_sequence<count>{}));
};

// ---- fields that are one copy together
//
// Inside a run, fields whose encoding is their object bytes and that lie back
// to back in memory (a padded struct's leading fields, most of a message's
// scalars) are copied as one block instead of one by one. Which fields have
// that encoding is known from the type; whether they are adjacent too for a
// plain aggregate (adjacent_by_type), otherwise it is asked of their
// addresses, which the compiler folds once the struct's fields are inlined.

// True when the field's bytes may be written as they are (encoding side).
template <options Opts, class T>
consteval bool writes_object_bytes() {
  return shape<Opts, std::remove_cvref_t<T>>::writes_object_bytes();
}

// True when T's encoding IS its object representation and decoding accepts
// any such bytes: a bulk type without checked contents (bool, ranged enums,
// validate.hpp) or pointers, or a codec that declares object_bytes. Such
// values are one copy each way (a run's adjacent fields, a vector's elements:
// std_codec::is_object_bytes).
template <options Opts, class T>
consteval bool object_bytes_encoding() {
  return shape<Opts, T>::object_bytes();
}

// The same for decoding into a field, which must also be assignable.
template <options Opts, class T>
consteval bool reads_object_bytes() {
  using U = std::remove_reference_t<T>;
  if constexpr (std::is_const_v<U> || !std::is_trivially_copy_assignable_v<U>)
    return false;
  else
    return object_bytes_encoding<Opts, U>();
}

// How many fields from Begin (before End) of a tuple of field references are
// object bytes, for writing (Write) or for reading.
template <options Opts, bool Write, class Tuple, std::size_t Begin, std::size_t End>
consteval std::size_t object_bytes_prefix() {
  return []<std::size_t... J>(std::index_sequence<J...>) {
    const bool flags[] = {
        (Write ? writes_object_bytes<Opts, std::tuple_element_t<Begin + J, Tuple>>()
               : reads_object_bytes<Opts, std::tuple_element_t<Begin + J, Tuple>>())...,
        false};
    std::size_t n = 0;
    while (n < sizeof...(J) && flags[n]) ++n;
    return n;
  }(std::make_index_sequence<End - Begin>{});
}

template <class Tuple, std::size_t... I>
consteval std::size_t fields_sizeof(std::index_sequence<I...>) {
  return (sizeof(std::remove_cvref_t<std::tuple_element_t<I, Tuple>>) + ... + 0);
}

// Where a struct's fields are, when that is known from its type: a plain
// aggregate's fields are its members in declaration order, and a standard-
// layout struct places each at the next offset its alignment allows. The
// check against sizeof(T) makes sure the computation matches the compiler's.
struct unknown_layout {};
template <class T>
struct aggregate_layout {};

template <class... Ms>
consteval auto natural_offsets(type_list<Ms...>) {
  struct result {
    std::size_t offsets[sizeof...(Ms) + 1]; // the last: the struct's size
    std::size_t sizes[sizeof...(Ms) + 1];
  } r{{}, {sizeof(Ms)..., 0}};
  const std::size_t aligns[] = {alignof(Ms)..., 1};
  std::size_t at = 0, max_align = 1;
  for (std::size_t i = 0; i < sizeof...(Ms); ++i) {
    at = (at + aligns[i] - 1) / aligns[i] * aligns[i];
    r.offsets[i] = at;
    at += r.sizes[i];
    max_align = aligns[i] > max_align ? aligns[i] : max_align;
  }
  r.offsets[sizeof...(Ms)] = (at + max_align - 1) / max_align * max_align;
  return r;
}

template <class T>
consteval bool layout_known() {
  if constexpr (!std::is_standard_layout_v<T> || !has_visible_fields<T> || Reflectable<T>) {
    return false;
  } else {
    constexpr auto r = natural_offsets(member_types_t<T>{});
    return r.offsets[member_types_t<T>::size] == sizeof(T);
  }
}

// Whether fields First, I... (consecutive indices) are back to back: 1 yes,
// 0 no, -1 not known from the type (ask their addresses).
template <class Layout, std::size_t First, std::size_t... I>
consteval int adjacent_by_type(std::index_sequence<First, I...>) {
  if constexpr (std::is_same_v<Layout, unknown_layout>) {
    return -1;
  } else {
    return []<class T>(aggregate_layout<T>) {
      if constexpr (!layout_known<T>()) {
        return -1;
      } else {
        constexpr auto r = natural_offsets(member_types_t<T>{});
        const std::size_t idx[] = {First, I...};
        for (std::size_t k = 0; k < sizeof...(I); ++k)
          if (r.offsets[idx[k]] + r.sizes[idx[k]] != r.offsets[idx[k + 1]]) return 0;
        return 1;
      }
    }(Layout{});
  }
}

// Whether fields I... of the tuple sit back to back in memory, in order.
template <class Tuple, std::size_t First, std::size_t... I>
BIN_SERIALIZER_INLINE bool adjacent_fields(const Tuple& fields, std::index_sequence<First, I...>) {
  const auto* base = reinterpret_cast<const unsigned char*>(&std::get<First>(fields));
  std::size_t offset = sizeof(std::remove_cvref_t<std::tuple_element_t<First, Tuple>>);
  bool ok = true;
  ((ok = ok && reinterpret_cast<const unsigned char*>(&std::get<I>(fields)) == base + offset,
    offset += sizeof(std::remove_cvref_t<std::tuple_element_t<I, Tuple>>)),
   ...);
  return ok;
}

// Whether fields I... are back to back: from the type when it can tell
// (adjacent_by_type), else from their addresses.
template <class Layout, class Tuple, std::size_t... I>
BIN_SERIALIZER_INLINE bool fields_adjacent(const Tuple& fields, std::index_sequence<I...> idx) {
  constexpr int known = adjacent_by_type<Layout>(std::index_sequence<I...>{});
  if constexpr (known >= 0)
    return known == 1;
  else
    return adjacent_fields(fields, idx);
}

} // namespace bin_serializer::detail
