// std::optional<T>: [uint8 presence: 0 or 1][T, only if the byte is 1]
//
// std::optional<int> is trivially copyable, which is why codecs are looked up
// before the memcpy path (core/classify.hpp): copying the object would send
// padding and whatever the engaged flag held, and decoding could not reject a
// flag of 2. Decoding rejects any presence byte other than 0 and 1
// (errc::invalid_value at that byte); with opts.validate_values off (the
// `trusted` preset) any non-zero byte means present.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class T>
struct codec<std::optional<T>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (core/schema_tokens.hpp): OPTIONAL, then the value.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_optional);
    h.template type<T>();
  }
  using optional_type = std::optional<T>;

  // The presence byte goes through serialize_field like any uint8_t, so each
  // wire format encodes it with its own leaf rules.
  using flag_type = std::uint8_t;

  // What the library knows of the encoding (core/codec_facts.hpp). size() is
  // exact: trusted for presizing when the value's is (core/shape.hpp asks
  // the `elements`).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = sizeof(flag_type),
      .max_size = BoundedSize<T, Opts>
                      ? sizeof(flag_type) + detail::std_codec::max_size_of_decayed<Opts, T>()
                      : codec_facts::unbounded,
      .has_size = true,
      .has_size_bound = true,
      .trusted_size = true};

  template <class W>
  static bool write(W& w, const optional_type& o) {
    const flag_type present = o.has_value() ? 1 : 0;
    if (!::bin_serializer::serialize_field(w, present)) return false;
    return !o.has_value() || ::bin_serializer::serialize_field(w, *o);
  }

  template <options Opts>
  static constexpr std::size_t size(const optional_type& o) {
    return sizeof(flag_type) + (o.has_value() ? ::bin_serializer::serialized_size<Opts>(*o) : 0);
  }
  template <options Opts>
  static constexpr std::size_t size_bound(const optional_type& o) {
    return sizeof(flag_type) + (o.has_value() ? detail::size_bound_of<Opts>(*o) : 0);
  }

  template <class R>
  static bool read(R& r, optional_type& o) {
    detail::std_codec::require_default_constructible<T>();
    [[maybe_unused]] const std::size_t at = r.position();
    flag_type present = 0;
    if (!::bin_serializer::deserialize_field(r, present)) return false;
    if (present == 0) {
      o.reset();
      return true;
    }
    if constexpr (R::opts.validate_values) {
      if (present != 1) [[unlikely]]
        return r.fail(errc::invalid_value, at);
    }
    // Decode into the existing value when there is one: it may own storage
    // (a string, a vector) that can be reused.
    if (!o.has_value()) o.emplace();
    return ::bin_serializer::deserialize_field(r, *o);
  }
};

} // namespace bin_serializer
