// Writing an evolvable struct: included at the end of core/encode.hpp, after
// write_value, which it recurses into.
#pragma once

#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>

#include "../error.hpp"
#include "size.hpp"
#include "evolution_fields.hpp"
#include "evolution_io.hpp"

namespace bin_serializer::detail {

template <class W, class T>
bool write_evolvable(W& w, const T& value) {
  using U = std::remove_cv_t<T>;
  static_assert(check_evolvable<U>());
  // The body length goes first, so measure before writing (a bounded struct
  // is a constant; otherwise one walk over string and container lengths).
  const std::size_t body = fields_size<W::opts>(value);
  constexpr std::size_t fields = evolvable_field_count<U>();
  std::size_t count = fields;
  if constexpr (keeps_unknown_fields<U>) {
    // Fields a newer writer appended, kept by a read of this (older) type:
    // written back after ours, counted in the field count.
    const unknown_fields& kept = std::get<fields>(field_refs(value));
    if (kept.empty() != kept.bytes.empty()) [[unlikely]]
      return w.fail(errc::invalid_value); // bytes without a count, or a count without bytes
    count += kept.count;
  }
  if (body > std::numeric_limits<std::uint32_t>::max() ||
      count > std::numeric_limits<std::uint32_t>::max()) [[unlikely]]
    return w.fail(errc::limit_exceeded);
  const std::uint32_t prefix[2] = {encode_u32<W::opts>(static_cast<std::uint32_t>(body)),
                                   encode_u32<W::opts>(static_cast<std::uint32_t>(count))};
  if (!w.write_bytes(prefix, sizeof prefix)) return false;
  // The fields, then (a kept unknown_fields member, last) the bytes kept.
  auto visit = [&w](const auto&... f) -> bool {
    auto one = [&w](const auto& m) -> bool {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m)>, unknown_fields>)
        return m.bytes.empty() || w.write_bytes(m.bytes.data(), m.bytes.size());
      else
        return write_value(w, m);
    };
    return (one(f) && ...);
  };
  return visit_members(value, visit);
}

} // namespace bin_serializer::detail
