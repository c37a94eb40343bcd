// Every wire format the library knows. The core includes this one header; a
// format is added by writing format/<name>.hpp and listing it here.
#pragma once

#include <cstdint>

#include "format.hpp"
#include "native.hpp"
#include "portable.hpp"
#include "compact.hpp"

namespace bin_serializer::detail {

template <class F, class... Fs>
struct format_list {
  // Calls f(policy{}) for the format whose id is `id`; false if none is.
  template <class Fn>
  static constexpr bool with(std::uint8_t id, Fn&& fn) {
    if (static_cast<std::uint8_t>(F::id) == id) {
      fn(F{});
      return true;
    }
    if constexpr (sizeof...(Fs) != 0)
      return format_list<Fs...>::with(id, fn);
    else
      return false;
  }
};

using all_formats =
    format_list<format_policy<wire_format::native>, format_policy<wire_format::portable>,
                format_policy<wire_format::compact>>;

} // namespace bin_serializer::detail
