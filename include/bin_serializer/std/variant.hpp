// std::variant<Ts...>: [uint32 index][the active alternative]
// std::monostate:      nothing (0 bytes)
//
// The index is a uint32_t rather than a uint64_t or a size_t: 4 bytes hold any
// index a variant can have (no compiler accepts anywhere near 2^32
// alternatives), they are the same on every platform, and they halve the
// overhead of a uint64 for the common small variant. It goes through
// serialize_field like any uint32_t, so each wire format encodes it with its
// own integer rules (host order in native, little-endian in portable).
//
// Decoding rejects an index >= sizeof...(Ts) (errc::invalid_value at the
// index), whatever opts.validate_values says: there is no alternative to
// decode into, so this check guards memory safety, not just value validity.
// Encoding a valueless_by_exception variant fails with errc::invalid_value:
// there is no index to send.
//
// Like std::optional, a variant of trivially copyable alternatives is itself
// trivially copyable; the codec is what keeps it from being copied as an
// object (a raw index in the implementation's own width, plus padding).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>

#include "codec_support.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <>
struct codec<std::monostate> {

  // Fingerprint (core/schema_tokens.hpp): MONOSTATE.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_monostate);
  }

  // Nothing to encode (core/codec_facts.hpp): 0 bytes, in every format.
  static constexpr codec_facts facts{
      .min_size = 0, .max_size = 0, .has_size = true, .trusted_size = true};

  template <class W>
  static constexpr bool write(W&, const std::monostate&) noexcept {
    return true;
  }

  template <options Opts>
  static constexpr std::size_t size(const std::monostate&) noexcept {
    return 0;
  }

  template <class R>
  static constexpr bool read(R&, std::monostate&) noexcept {
    return true;
  }
};

template <class... Ts>
struct codec<std::variant<Ts...>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<Ts...>;

  // Fingerprint (core/schema_tokens.hpp): VARIANT n, then each alternative.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_variant, sizeof...(Ts));
    h.template type<Ts...>();
  }
  using variant_type = std::variant<Ts...>;

  using index_type = std::uint32_t;
  using indices = std::index_sequence_for<Ts...>;

  static_assert(sizeof...(Ts) <= std::size_t{0xFFFFFFFF},
                "bin_serializer: a variant's index is encoded as a uint32_t");

  // What the library knows of the encoding (core/codec_facts.hpp).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = detail::std_codec::min_size_of<Opts, index_type>() +
                  std::min({detail::std_codec::min_size_of<Opts, Ts>()...}),
      .max_size = (BoundedSize<Ts, Opts> && ...)
                      ? detail::std_codec::max_size_of_decayed<Opts, index_type>() +
                            std::max({detail::std_codec::max_size_of_decayed<Opts, Ts>()...})
                      : codec_facts::unbounded,
      .has_size = true,
      .trusted_size = true}; // with its alternatives' (core/shape.hpp)

  template <class W>
  static bool write(W& w, const variant_type& v) {
    if (v.valueless_by_exception()) [[unlikely]]
      return w.fail(errc::invalid_value);
    const auto index = static_cast<index_type>(v.index());
    return ::bin_serializer::serialize_field(w, index) && write_active(w, v, indices{});
  }

  template <options Opts>
  static constexpr std::size_t size(const variant_type& v) {
    // A valueless variant cannot be written (write fails); count its index only.
    if (v.valueless_by_exception())
      return detail::std_codec::max_size_of_decayed<Opts, index_type>();
    return ::bin_serializer::serialized_size<Opts>(static_cast<index_type>(v.index())) +
           size_active<Opts>(v, indices{});
  }

  template <class R>
  static bool read(R& r, variant_type& v) {
    static_assert((std::is_default_constructible_v<Ts> && ...),
                  "bin_serializer: decoding a std::variant default-constructs the alternative "
                  "named by the index (emplace<I>()) and then decodes into it, so every "
                  "alternative must be default constructible.");
    const std::size_t at = r.position();
    index_type index = 0;
    if (!::bin_serializer::deserialize_field(r, index)) return false;
    if (index >= sizeof...(Ts)) [[unlikely]]
      return r.fail(errc::invalid_value, at);
    return read_alternative(r, v, static_cast<std::size_t>(index), indices{});
  }

private:
  // Each of these is a flat fold over the alternatives' indices: exactly one
  // term matches, and no recursion grows with the number of alternatives.

  template <class W, std::size_t... I>
  static bool write_active(W& w, const variant_type& v, std::index_sequence<I...>) {
    bool ok = false;
    const std::size_t active = v.index();
    (void)((active == I ? (ok = ::bin_serializer::serialize_field(w, *std::get_if<I>(&v)), true)
                        : false) ||
           ...);
    return ok;
  }

  template <options Opts, std::size_t... I>
  static constexpr std::size_t size_active(const variant_type& v, std::index_sequence<I...>) {
    std::size_t total = 0;
    const std::size_t active = v.index();
    (void)((active == I
                ? (total = ::bin_serializer::serialized_size<Opts>(*std::get_if<I>(&v)), true)
                : false) ||
           ...);
    return total;
  }

  template <std::size_t I, class R>
  static bool read_as(R& r, variant_type& v) {
    // Decode into the current alternative when it is already the right one
    // (it may own reusable storage); otherwise construct it first.
    if (v.index() != I) v.template emplace<I>();
    return ::bin_serializer::deserialize_field(r, *std::get_if<I>(&v));
  }

  template <class R, std::size_t... I>
  static bool read_alternative(R& r, variant_type& v, std::size_t index,
                               std::index_sequence<I...>) {
    bool ok = false;
    (void)((index == I ? (ok = read_as<I>(r, v), true) : false) || ...);
    return ok;
  }
};

} // namespace bin_serializer
