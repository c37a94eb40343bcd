// std::valarray<T>: [count][count elements], the bytes of the std::vector<T>
// with the same elements (the count is the format's length prefix,
// format/<name>.hpp).
//
// A test-only type family, written the way docs/contributing.md says a new
// family is written: one header, one codec, derived from the sequence codec
// of std/codec_support.hpp. It says nothing about counts, allocation or
// streams: a std::valarray cannot grow one element at a time (resize()
// discards its values), so it takes the staged appender, which decodes into
// a std::vector and hands that over; the hostile-count safety (count checked
// against the input, bounded reservation, growth with the bytes received)
// comes with the base. tests/std/test_valarray_family.cpp checks that it does.
#pragma once

#include <bin_serializer/std/codec_support.hpp>

#include <utility>
#include <valarray>
#include <vector>

namespace valarray_family {

// The decoded elements become the valarray (the staged appender's Build).
struct adopt_vector {
  template <class T>
  static void adopt(std::valarray<T>& out, std::vector<T>&& elements) {
    out = std::valarray<T>(elements.data(), elements.size());
  }
};

} // namespace valarray_family

template <class T>
struct bin_serializer::codec<std::valarray<T>>
    : bin_serializer::detail::std_codec::sequence_codec<
          std::valarray<T>, bin_serializer::detail::std_codec::staged_appender<
                                std::valarray<T>, valarray_family::adopt_vector>> {};
