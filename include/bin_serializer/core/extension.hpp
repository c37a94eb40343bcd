// The extension points a user (or a std/ family) specialises, and what the
// classification reads from them.
//
//   codec<T>                  T's family defines its own layout
//   trivially_serializable<T> opt-in: T's object bytes are its native encoding
//
// A codec's own description (sizes, bounds, value checks, fingerprint) is read
// by core/shape.hpp; the classification (core/classify.hpp) reads only two
// facts: the element types the codec lists (`elements`) and whether, inside a
// struct copied as one block, its value's object bytes may stand for its
// encoding (`.object_bytes` or `.in_block` in its codec_facts, core/codec_facts.hpp).
#pragma once

#include <type_traits>

#include "../options.hpp"
#include "../reflect/type_list.hpp"
#include "codec_facts.hpp"

namespace bin_serializer {

namespace detail {
struct no_codec {};
} // namespace detail

// Extension point. Specialise for a type (or a family, with a constrained
// partial specialisation) to give it a wire layout:
//
//   template <> struct bin_serializer::codec<Money> {
//     template <class W> static bool write(W& w, const Money& m) { return serialize_field(w, m.cents); }
//     template <class R> static bool read(R& r, Money& m) { return deserialize_field(r, m.cents); }
//   };
//
// W and R are the library's writer and reader (cursor/writer.hpp,
// cursor/reader.hpp); serialize_field / deserialize_field recurse into members.
template <class T>
struct codec : detail::no_codec {};

// Opt-in for a trivially copyable type whose members the library cannot see
// (private members and no reflect(), a union, a class with a base): its object
// bytes, padding included, become its native encoding. The library can then
// no longer check it for pointers; that is the promise the opt-in makes.
//
//   template <> struct bin_serializer::trivially_serializable<MyType> : std::true_type {};
template <class T>
struct trivially_serializable : std::false_type {};

namespace detail {

template <class T>
concept has_codec = !std::is_base_of_v<no_codec, codec<T>>;

template <class T>
concept opted_in_bulk = trivially_serializable<std::remove_cv_t<T>>::value;

// A codec may state that, in format Opts, its encoding is exactly the
// object's bytes (chrono durations, std::array of scalars): .object_bytes in
// its facts (core/codec_facts.hpp).
template <options Opts, class T>
consteval bool codec_is_object_bytes() {
  return facts_of_codec<Opts, T>.object_bytes;
}

// Inside a struct copied as one block, may this codec's value be copied with
// it? Its object bytes (.object_bytes), or .in_block (std::array: its
// elements' bytes, checked or not, are what it writes).
template <options Opts, class T>
consteval bool codec_in_block() {
  constexpr codec_facts f = facts_of_codec<Opts, T>;
  return f.object_bytes || f.in_block;
}

// A codec may list the types it holds (a container's element, an optional's
// value, a variant's alternatives):
//   using elements = type_list<T>;
// Serializable<T> then requires each of them, so a std::vector<int*> is
// refused where it is used with one message, not deep inside the codec.
template <class T>
concept codec_lists_elements = has_codec<T> && is_type_list<typename codec<T>::elements>;

} // namespace detail

} // namespace bin_serializer
