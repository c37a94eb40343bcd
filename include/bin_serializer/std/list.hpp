// std::list<T, A>:         [count][count elements]
// std::forward_list<T, A>: [count][count elements]
//
// The bytes of the std::vector<T> with the same elements (the count is the
// format's length prefix, format/<name>.hpp), so a list can be decoded as a
// vector and the other way round. Sequence codecs (codec_support.hpp,
// sequence_codec): elements always go one by one (the nodes are not
// contiguous); decoding clears the target and appends each element before
// decoding into it, so on failure the list holds what was decoded.
#pragma once

#include <forward_list>
#include <list>

#include "codec_support.hpp"

namespace bin_serializer {

template <class T, class A>
struct codec<std::list<T, A>>
    : detail::std_codec::sequence_codec<std::list<T, A>,
                                        detail::std_codec::back_appender<std::list<T, A>>> {};

template <class T, class A>
struct codec<std::forward_list<T, A>>
    : detail::std_codec::sequence_codec<
          std::forward_list<T, A>, detail::std_codec::after_appender<std::forward_list<T, A>>> {};

} // namespace bin_serializer
