// Writing an evolvable struct: included at the end of core/encode.hpp, after
// write_value, which it recurses into.
#pragma once

#include <cstdint>
#include <limits>

#include "../error.hpp"
#include "size.hpp"
#include "evolution_io.hpp"

namespace bin_serializer::detail {

template <class W, class T>
bool write_evolvable(W& w, const T& value) {
  using U = std::remove_cv_t<T>;
  static_assert(check_evolvable<U>());
  // The body length goes first, so measure before writing (a bounded struct
  // is a constant; otherwise one walk over string and container lengths).
  const std::size_t body = fields_size<W::opts>(value);
  if (body > std::numeric_limits<std::uint32_t>::max()) [[unlikely]]
    return w.fail(errc::limit_exceeded);
  const std::uint32_t prefix[2] = {
      encode_u32<W::opts>(static_cast<std::uint32_t>(body)),
      encode_u32<W::opts>(static_cast<std::uint32_t>(evolvable_field_count<U>()))};
  if (!w.write_bytes(prefix, sizeof prefix)) return false;
  auto visit = [&w](const auto&... fields) -> bool { return (write_value(w, fields) && ...); };
  return visit_members(value, visit);
}

} // namespace bin_serializer::detail
