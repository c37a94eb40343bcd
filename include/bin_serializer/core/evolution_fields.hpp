// retired<U, V...>: exactly U's encoding (its wire slot); unknown_fields: no
// encoding of its own (the evolvable struct writes and reads it).
//
// A retired field needs a codec because the member holds nothing: writing
// takes the fixed value (U{} or U(V)), reading decodes a U, with all of U's
// checks (an older writer's bytes must still be a valid U), and drops it. Its
// fingerprint is U's, so retiring a field changes neither bytes nor
// fingerprint. unknown_fields is not a field: core/evolution_write.hpp and
// core/evolution_read.hpp handle it; anywhere else it is an error.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../reflect/enum_range.hpp"
#include "../reflect/evolution.hpp"
#include "../reflect/type_list.hpp"
#include "codec_facts.hpp"
#include "field.hpp"
#include "shape.hpp"

namespace bin_serializer {

template <class U, auto... Fixed>
struct codec<retired<U, Fixed...>> {
  using type = retired<U, Fixed...>;
  using elements = detail::type_list<U>;

  template <class H>
  static constexpr void schema(H& h) {
    h.template type<U>();
  }

  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::shape<Opts, U>::min_size(),
                                     .max_size = detail::shape<Opts, U>::bounded()
                                                     ? detail::shape<Opts, U>::max_size()
                                                     : codec_facts::unbounded,
                                     .has_size = true,
                                     .has_size_bound = true,
                                     .trusted_size = true};

  // An old reader still decodes the slot as a U, with U's checks.
  static constexpr bool fixed_value_valid() {
    if constexpr (detail::ranged_enum<U>) {
      using I = std::underlying_type_t<U>;
      constexpr I v = static_cast<I>(type::fixed_value());
      return static_cast<I>(enum_range<U>::min) <= v && v <= static_cast<I>(enum_range<U>::max);
    } else {
      return true;
    }
  }

  template <class W>
  static bool write(W& w, const type&) {
    static_assert(fixed_value_valid(),
                  "bin_serializer: retired<E> writes E{}, which enum_range<E> refuses, so readers "
                  "that still use the field would fail; name a value in the range:\n"
                  "    [[no_unique_address]] bin_serializer::retired<E, E::some_valid_value> field;");
    const U fixed = type::fixed_value();
    return ::bin_serializer::serialize_field(w, fixed);
  }
  template <options Opts>
  static constexpr std::size_t size(const type&) {
    return detail::shape<Opts, U>::size(type::fixed_value());
  }
  template <options Opts>
  static constexpr std::size_t size_bound(const type&) {
    return detail::shape<Opts, U>::size_bound(type::fixed_value());
  }
  template <class R>
  static bool read(R& r, type&) {
    U dropped{};
    return ::bin_serializer::deserialize_field(r, dropped);
  }
};

template <>
struct codec<unknown_fields> {
  using elements = detail::type_list<>;
  template <class H>
  static constexpr void schema(H&) {}

  // Its bytes are written by the evolvable struct holding it (their size
  // counts in the struct's body).
  template <options Opts>
  static constexpr codec_facts facts{.has_size = true, .leaf = true};
  template <options Opts>
  static constexpr std::size_t size(const unknown_fields& u) {
    return u.bytes.size();
  }

  template <class W>
  static bool write(W&, const unknown_fields&) {
    static_assert(sizeof(W) == 0,
                  "bin_serializer: unknown_fields belongs to an evolvable struct, as its last "
                  "member:\n"
                  "    struct S { ...; bin_serializer::unknown_fields unknown;\n"
                  "               using bin_serializer_evolution = bin_serializer::versions<...>; };");
    return false;
  }
  template <class R>
  static bool read(R&, unknown_fields&) {
    static_assert(sizeof(R) == 0,
                  "bin_serializer: unknown_fields belongs to an evolvable struct, as its last "
                  "member:\n"
                  "    struct S { ...; bin_serializer::unknown_fields unknown;\n"
                  "               using bin_serializer_evolution = bin_serializer::versions<...>; };");
    return false;
  }
};

} // namespace bin_serializer
