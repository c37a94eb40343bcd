// std::array<T, N>: [N elements], no count (N is part of the type).
// std::span<T, E>:  see span.hpp (included here, where it used to live).
//
// std::array needs a codec even though it is often trivially copyable: the
// memcpy path would copy std::array<T, 0>'s placeholder byte, skip bool
// validation for std::array<bool, N>, and bypass the codec of an element such
// as std::optional. When the elements are plain object bytes the whole array is
// still one copy. A span must never be copied as an object (that would send a
// pointer), hence its codec too (span.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>

#include "codec_support.hpp"
#include "span.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

namespace detail::std_codec {
template <options Opts, class T, std::size_t N>
consteval std::size_t array_max_size() {
  if constexpr (N == 0)
    return 0;
  else
    return N * max_size_of_decayed<Opts, T>();
}

// Bytes of the array inside a run of fixed-size fields: its elements' (0 if
// they cannot join one).
template <options Opts, class T, std::size_t N>
consteval std::size_t array_run_size() {
  if constexpr (N == 0)
    return 0;
  else
    return N * shape<Opts, T>::run_size();
}

template <options Opts, class T, std::size_t N>
consteval bool array_is_object_bytes() {
  if constexpr (N == 0)
    return false; // encodes to 0 bytes, but sizeof(std::array<T, 0>) is not 0
  else
    return sizeof(std::array<T, N>) == N * sizeof(T) && is_object_bytes<Opts, T>();
}
} // namespace detail::std_codec

template <class T, std::size_t N>
struct codec<std::array<T, N>> {
  // What Serializable<T> checks inside (core/classify.hpp).
  using elements = detail::type_list<T>;

  // Fingerprint (core/schema_tokens.hpp): ARRAY N, then the element.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_array, N);
    h.template type<T>();
  }
  using array_type = std::array<T, N>;

  // What the library knows of the encoding (core/codec_facts.hpp):
  //   object_bytes  the whole array is its elements' object bytes back to
  //                 back: a vector of such arrays is still one block
  //                 (codec_support.hpp);
  //   run_size      N elements, each as in a run (a struct of them joins one);
  //   validates     inside a block-copied struct the array is its elements'
  //                 object bytes: their checks are its checks
  //                 (core/validate.hpp, invalid_at below);
  //   borrows       as its elements (`elements` above), the default.
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = N * detail::std_codec::min_size_of<Opts, T>(),
      .max_size = N == 0 || BoundedSize<T, Opts> ? detail::std_codec::array_max_size<Opts, T, N>()
                                                 : codec_facts::unbounded,
      .run_size = detail::std_codec::array_run_size<Opts, T, N>(),
      .object_bytes = detail::std_codec::array_is_object_bytes<Opts, T, N>(),
      // Inside a struct copied as one block, copied with it when its elements
      // would be (core/classify.hpp): in the host's layout whatever their
      // checks (the block's checks are the array's: validates), elsewhere
      // when its memory is its elements' encodings back to back.
      .in_block =
          detail::format_of<Opts>::host_layout
              ? detail::copies_in_block<Opts, T>()
              : N != 0 && sizeof(array_type) == N * sizeof(T) && detail::copies_in_block<Opts, T>(),
      .validates =
          N != 0 && sizeof(array_type) == N * sizeof(T) && detail::shape<Opts, T>::validates(),
      .has_size = true,
      .trusted_size = true}; // with its elements' (core/shape.hpp)
  template <options Opts>
    requires(facts<Opts>.validates)
  static std::size_t invalid_at(const unsigned char* p) noexcept {
    return detail::elements_invalid_at<detail::shape<Opts, T>, T, N>(p);
  }

  // Object bytes (or nothing): one copy, inlined as the compiler sees fit.
  template <class W>
    requires(N == 0 || facts<W::opts>.object_bytes)
  BIN_SERIALIZER_INLINE static bool write(W& w, const array_type& a) {
    detail::std_codec::refuse_pointers<W::opts, T>();
    if constexpr (N == 0) {
      (void)w;
      (void)a;
      return true;
    } else {
      return w.write_bytes(a.data(), sizeof(T) * N);
    }
  }
  // Element by element (a varint, a bool): always inlined into the message's
  // encoder, so the cursor stays in a register.
  template <class W>
    requires(N != 0 && !facts<W::opts>.object_bytes)
  BIN_SERIALIZER_INLINE static bool write(W& w, const array_type& a) {
    detail::std_codec::refuse_pointers<W::opts, T>();
    if constexpr (detail::format_scalar<W::opts, T>)
      return detail::put_scalars<detail::format_of<W::opts>, T, N>(w, a.data());
    return detail::std_codec::write_each(w, a);
  }

  template <options Opts>
  static constexpr std::size_t size(const array_type& a) {
    return detail::std_codec::elements_size<Opts, T>(a, N);
  }

  template <class R>
    requires(N == 0 || facts<R::opts>.object_bytes)
  BIN_SERIALIZER_INLINE static bool read(R& r, array_type& a) {
    detail::std_codec::refuse_pointers<R::opts, T>();
    static_assert(N == 0 || !std::is_const_v<T>,
                  "bin_serializer: cannot deserialize into std::array<const T, N>: its "
                  "elements cannot be assigned; decode into std::array<T, N>");
    if constexpr (N == 0) {
      (void)r;
      (void)a;
      return true;
    } else if constexpr (std::is_const_v<T>) {
      return false; // refused above (one message, not a conversion error too)
    } else {
      return r.read_bytes(a.data(), sizeof(T) * N);
    }
  }
  template <class R>
    requires(N != 0 && !facts<R::opts>.object_bytes)
  BIN_SERIALIZER_INLINE static bool read(R& r, array_type& a) {
    detail::std_codec::refuse_pointers<R::opts, T>();
    if constexpr (detail::format_scalar<R::opts, T> && !detail::shape<R::opts, T>::validates())
      return detail::get_scalars<detail::format_of<R::opts>, T, N>(r, a.data());
    // Elements that are object bytes but for their checks (bools, ranged
    // enums, structs of such in the host's layout): an input too short for
    // all of them is truncated at the array's start, as it is when they are
    // one copy (no checks) and as the Python package reports (the failing
    // take() records it and reads nothing); else they are all there, and
    // read with no bounds check each (read_elements).
    using each = detail::shape<R::opts, T>;
    if constexpr (R::contiguous && detail::copies_in_block<R::opts, T>() && each::min_size() != 0 &&
                  each::min_size() == each::max_size()) {
      if (!detail::has_room(r, N * each::min_size())) [[unlikely]] {
        (void)r.take(N * each::min_size());
        return false;
      }
      return detail::std_codec::read_elements<T>(r, N, [&a](auto& in) BIN_SERIALIZER_LAMBDA_INLINE {
        for (auto& element : a)
          if (!::bin_serializer::deserialize_field(in, element)) return false;
        return true;
      });
    }
    for (auto& element : a)
      if (!::bin_serializer::deserialize_field(r, element)) return false;
    return true;
  }
};

} // namespace bin_serializer
