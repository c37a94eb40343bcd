// std::deque<T, A>: [count][count elements]
//
// The bytes of the std::vector<T> with the same elements (the count is the
// format's length prefix, format/<name>.hpp). A sequence codec
// (codec_support.hpp, sequence_codec): elements go one by one (a deque's
// storage is not one block); decoding clears the target and appends each
// element before decoding into it, so on failure the deque holds what was
// decoded.
#pragma once

#include <deque>

#include "codec_support.hpp"

namespace bin_serializer {

template <class T, class A>
struct codec<std::deque<T, A>>
    : detail::std_codec::sequence_codec<std::deque<T, A>,
                                        detail::std_codec::back_appender<std::deque<T, A>>> {};

} // namespace bin_serializer
