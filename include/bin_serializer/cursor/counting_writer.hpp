// The writer that stores nothing: it counts the bytes a codec would write,
// which is how the size of a value whose codec has no size() is measured
// (core/shape.hpp).
#pragma once

#include <cstddef>

#include "../error.hpp"
#include "../format/all.hpp"
#include "../options.hpp"
#include "writer.hpp"

namespace bin_serializer::detail {

// A writer that stores nothing and counts what would be written.
template <options Opts>
struct counting_writer {
  static constexpr options opts = Opts;
  std::size_t count = 0;
  constexpr bool write_bytes(const void*, std::size_t n) noexcept {
    count += n;
    return true;
  }
  constexpr bool write_length(std::size_t n) noexcept {
    count += format_of<Opts>::length_size(n);
    return true;
  }
  constexpr bool reserve(std::size_t) noexcept { return true; }
  constexpr bool fail(errc) noexcept { return false; }
  [[nodiscard]] constexpr std::size_t position() const noexcept { return count; }
};
} // namespace bin_serializer::detail
