// Encoding of evolvable structs (evolution.hpp; docs/wire-format.md section 11):
//
//   [u32 body_length][u32 field_count][fields...]
//
// Shared pieces: the static checks on a type's versions<...>, the prefix's
// byte order, and skipping bytes a reader does not understand. The write and
// read steps live next to write_value / read_value (evolution_write.hpp,
// evolution_read.hpp), which they recurse into.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../reflect/evolution.hpp"
#include "../options.hpp"
#include "classify.hpp"
#include "diagnostics.hpp"
#include "../format/all.hpp"

namespace bin_serializer::detail {

inline constexpr std::size_t evolvable_prefix_bytes = 2 * sizeof(std::uint32_t);

// Prefix fields are the format's fixed 4-byte prefix fields
// (format_policy::prefix_u32).
template <options Opts>
constexpr std::uint32_t encode_u32(std::uint32_t v) noexcept {
  return format_of<Opts>::prefix_u32(v);
}
template <options Opts>
constexpr std::uint32_t decode_u32(std::uint32_t v) noexcept {
  return format_of<Opts>::from_prefix_u32(v);
}

// Whether T's last member is unknown_fields (reflect/evolution.hpp).
template <class T>
inline constexpr bool keeps_unknown_fields = ends_with_unknown_fields(member_types_t<T>{});

// T's fields on the wire: its members but an unknown_fields one.
template <class T>
constexpr std::size_t evolvable_field_count() {
  return member_types_t<T>::size - (keeps_unknown_fields<T> ? 1 : 0);
}

// Compile-time checks shared by writer, reader and schema_hash.
template <class T>
consteval bool check_evolvable() {
  static_assert(has_visible_fields<T>,
                "bin_serializer: an evolvable struct must list its fields: give it reflect()\n"
                "    template <class V> auto reflect(V&& v) { return v(field1, field2); }\n"
                "    template <class V> auto reflect(V&& v) const { return v(field1, field2); }\n"
                "or make it a plain aggregate.");
  if constexpr (has_visible_fields<T>) {
    static_assert(unknown_fields_members(member_types_t<T>{}) ==
                      std::size_t{ends_with_unknown_fields(member_types_t<T>{})},
                  "bin_serializer: bin_serializer::unknown_fields is not a field: declare it once, "
                  "as the struct's last member:\n"
                  "    bin_serializer::unknown_fields unknown;");
    static_assert(versions_well_formed<T>(evolvable_field_count<T>()),
                  "bin_serializer: versions<...> must list each published version's field count, "
                  "oldest first, strictly increasing, the last equal to the struct's field count; "
                  "e.g. for 3 fields where version 1 had 2:\n"
                  "    using bin_serializer_evolution = bin_serializer::versions<2, 3>;");
  }
  return true;
}

// Consumes n bytes the reader will not decode.
template <class R>
bool skip_bytes(R& r, std::size_t n) {
  if constexpr (R::contiguous) {
    return r.take(n) != nullptr;
  } else {
    std::byte scratch[256];
    while (n != 0) {
      const std::size_t step = std::min(n, sizeof scratch);
      if (!r.read_bytes(scratch, step)) return false;
      n -= step;
    }
    return true;
  }
}

// Appends the next n bytes to `out`, in steps, so that a hostile length
// allocates no more than the bytes that are really there.
template <class R>
bool keep_bytes(R& r, std::size_t n, std::vector<std::byte>& out) {
  if constexpr (R::contiguous) {
    const auto* p = r.take(n);
    if (p == nullptr) return false;
    const auto* b = reinterpret_cast<const std::byte*>(p);
    out.assign(b, b + n);
    return true;
  } else {
    std::byte scratch[4096];
    while (n != 0) {
      const std::size_t step = std::min(n, sizeof scratch);
      if (!r.read_bytes(scratch, step)) return false;
      out.insert(out.end(), scratch, scratch + step);
      n -= step;
    }
    return true;
  }
}

// References to T's fields in wire order, as a tuple.
template <class T>
constexpr auto field_refs(T& value) {
  auto tie = [](auto&... fields) { return std::tie(fields...); };
  return visit_members(value, tie);
}

} // namespace bin_serializer::detail
