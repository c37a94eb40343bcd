// Reading an evolvable struct: included at the end of core/decode.hpp, after
// read_value, which it recurses into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "../error.hpp"
#include "evolution_fields.hpp"
#include "evolution_io.hpp"

namespace bin_serializer::detail {

template <class R, class T>
bool read_evolvable(R& r, T& value) {
  static_assert(check_evolvable<T>());
  static_assert(std::is_default_constructible_v<T>,
                "bin_serializer: decoding an evolvable struct from an older version gives the "
                "missing fields their value in T{}, so T must be default constructible");
  constexpr std::size_t fields = evolvable_field_count<T>();
  const std::size_t at = r.position();
  std::uint32_t prefix[2] = {};
  if (!r.read_bytes(prefix, sizeof prefix)) return false;
  const std::size_t body = decode_u32<R::opts>(prefix[0]);
  const std::size_t count = decode_u32<R::opts>(prefix[1]);
  if (body > r.remaining()) [[unlikely]] {
    const bool over_limit = R::opts.max_total_bytes != unlimited && body > R::opts.max_total_bytes;
    return r.fail(over_limit ? errc::limit_exceeded : errc::truncated, at);
  }
  if (count < fields && !is_version_boundary<T>(count)) [[unlikely]]
    return r.fail(error::schema(at + sizeof(std::uint32_t), mismatch::field_count, fields, count));
  const std::size_t end = r.position() + body;
  const std::size_t known = count < fields ? count : fields;

  auto refs = field_refs(value);
  const bool ok = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((I >= known || read_value(r, std::get<I>(refs))) && ...);
  }(std::make_index_sequence<fields>{});
  if (!ok) return false;
  if (known < fields) {
    // Older data: the fields it lacks get what a new T would hold.
    const T defaults{};
    auto from = field_refs(defaults);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((I >= known ? (void)(std::get<I>(refs) = std::get<I>(from)) : (void)0), ...);
    }(std::make_index_sequence<fields>{});
  }

  const std::size_t pos = r.position();
  if constexpr (keeps_unknown_fields<T>) {
    // Keep what a newer writer appended (bounded by the bytes present:
    // copied as they arrive, never sized from the prefix alone).
    unknown_fields& kept = std::get<fields>(refs);
    kept.bytes.clear();
    kept.count = 0;
    if (count > fields && pos <= end) {
      if (!keep_bytes(r, end - pos, kept.bytes)) return false;
      kept.count = static_cast<std::uint32_t>(count - fields);
      return true;
    }
  }
  if (pos == end) [[likely]]
    return true;
  if (pos < end && count > fields) return skip_bytes(r, end - pos); // newer data: skip the rest
  return r.fail(errc::invalid_value, end); // fields disagree with the body length
}

} // namespace bin_serializer::detail
