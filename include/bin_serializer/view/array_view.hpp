// array_view<T>: a read-only, non-owning view of T elements stored in some
// other memory, typically the input bytes a message was decoded from.
//
// Wire: [count][count elements], the bytes of std::vector<T> (the count is the
// format's length prefix, format/<name>.hpp). Decoding
// from a contiguous source (Buffer, FixedBuffer, BufferView) points the view
// into the input: no allocation, no copy. The elements may sit at any address
// (the wire has no alignment), so the view never hands out a T& or T*: each
// access copies sizeof(T) bytes into a T (one unaligned load for a scalar).
//
// T must be an element whose encoding is its object bytes in the decoding
// format (arithmetic types, enums, trivially copyable structs; in the portable
// format only padding-free ones; see core/classify.hpp, the packed fact). The one
// exception: in the portable format on a big-endian host, scalar elements are
// little-endian in the input and are byte-swapped on each access; structs are
// refused there at compile time. Lifetime rules: docs/zero-copy.md.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "../format/endian.hpp"
#include "../std/codec_support.hpp"

namespace bin_serializer {

template <class T>
class array_view {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>,
                "bin_serializer: array_view<T> needs a trivially copyable, non-const T (its "
                "elements are copied out of the input bytes). For other element types decode "
                "into std::vector<T>.");

public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;

  // Random access over the elements, yielding each one by value.
  class iterator {
  public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::input_iterator_tag; // operator* is a prvalue
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = T;

    iterator() noexcept = default;

    T operator*() const noexcept { return view_->load(i_); }
    T operator[](difference_type k) const noexcept { return view_->load(advance(i_, k)); }
    iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator t = *this;
      ++i_;
      return t;
    }
    iterator& operator--() noexcept {
      --i_;
      return *this;
    }
    iterator operator--(int) noexcept {
      iterator t = *this;
      --i_;
      return t;
    }
    iterator& operator+=(difference_type k) noexcept {
      i_ = advance(i_, k);
      return *this;
    }
    iterator& operator-=(difference_type k) noexcept {
      i_ = advance(i_, -k);
      return *this;
    }
    friend iterator operator+(iterator it, difference_type k) noexcept { return it += k; }
    friend iterator operator+(difference_type k, iterator it) noexcept { return it += k; }
    friend iterator operator-(iterator it, difference_type k) noexcept { return it -= k; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) noexcept { return a.i_ <=> b.i_; }

  private:
    friend class array_view;
    iterator(const array_view* v, std::size_t i) noexcept : view_(v), i_(i) {}
    static std::size_t advance(std::size_t i, difference_type k) noexcept {
      return static_cast<std::size_t>(static_cast<difference_type>(i) + k);
    }
    const array_view* view_ = nullptr;
    std::size_t i_ = 0;
  };

  constexpr array_view() noexcept = default;

  // A view of elements in memory (a std::vector, a std::array, a C array):
  // for serializing them without copying them into a container first.
  array_view(std::span<const T> elements) noexcept // NOLINT: implicit, like std::span
      : data_(reinterpret_cast<const std::byte*>(elements.data())), size_(elements.size()) {}
  template <std::size_t N>
  array_view(const T (&elements)[N]) noexcept // NOLINT: implicit, like std::span
      : array_view(std::span<const T>(elements)) {}
  template <class A>
  array_view(const std::vector<T, A>& elements) noexcept // NOLINT: implicit, like std::span
      : array_view(std::span<const T>(elements.data(), elements.size())) {}

  // `count` elements' object bytes at `bytes`, any alignment. With
  // `little_endian_scalars` (meaningful for scalar T on a big-endian host
  // only) the bytes are the portable format's and are swapped on access.
  static array_view from_bytes(const std::byte* bytes, std::size_t count,
                               bool little_endian_scalars = false) noexcept {
    array_view v;
    v.data_ = bytes;
    v.size_ = count;
    v.swap_ = !detail::little_endian_host && little_endian_scalars && sizeof(T) > 1;
    return v;
  }

  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  // The elements' bytes in place (possibly unaligned).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_bytes()}; }
  // True when the bytes are little-endian scalars that each access swaps
  // (portable format on a big-endian host); always false on little-endian hosts.
  [[nodiscard]] constexpr bool swaps_bytes() const noexcept { return swap_; }

  // Element i, copied out. Precondition: i < size() (see at() for a checked one).
  T operator[](std::size_t i) const noexcept { return load(i); }
  // Element i, or nothing when i is out of range.
  [[nodiscard]] std::optional<T> at(std::size_t i) const noexcept {
    if (i >= size_) return std::nullopt;
    return load(i);
  }
  [[nodiscard]] T front() const noexcept { return load(0); }
  [[nodiscard]] T back() const noexcept { return load(size_ - 1); }

  [[nodiscard]] iterator begin() const noexcept { return {this, 0}; }
  [[nodiscard]] iterator end() const noexcept { return {this, size_}; }

  // An owning copy (allocates).
  [[nodiscard]] std::vector<T> to_vector() const {
    std::vector<T> out(size_);
    if constexpr ((detail::little_endian_host || sizeof(T) == 1) && !std::is_same_v<T, bool>) {
      if (size_ != 0) std::memcpy(out.data(), data_, size_bytes());
    } else {
      for (std::size_t i = 0; i < size_; ++i) out[i] = load(i);
    }
    return out;
  }

  // Element-wise equality of the values (so 0.0f == -0.0f, NaN != NaN).
  friend bool operator==(const array_view& a, const array_view& b) noexcept
    requires std::equality_comparable<T>
  {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a.load(i) == b.load(i))) return false;
    return true;
  }

private:
  T load(std::size_t i) const noexcept {
    T v;
    std::memcpy(&v, data_ + i * sizeof(T), sizeof(T));
    if constexpr (!detail::little_endian_host && detail::scalar_type<T> && sizeof(T) > 1) {
      if (swap_) {
        typename detail::uint_of_size<sizeof(T)>::type bits;
        std::memcpy(&bits, &v, sizeof bits);
        v = detail::from_little<T>(bits);
      }
    }
    return v;
  }

  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool swap_ = false;
};

template <class T>
array_view(std::span<const T>) -> array_view<T>;

namespace detail {
// Scalars format Opts encodes as their fixed-width little-endian bytes.
template <options Opts, class T>
consteval bool little_endian_element() {
  if constexpr (scalar_type<T>)
    return !format_of<Opts>::template refuses<T> &&
           format_of<Opts>::template little_endian_scalar<T>;
  else
    return false;
}

// Elements an array_view can point at in format Opts: those whose encoding is
// their object bytes, plus little-endian scalars on a big-endian host, which
// array_view swaps on access.
template <options Opts, class T>
consteval bool viewable_element() {
  return bulk_copyable<Opts, T> || little_endian_element<Opts, T>();
}
} // namespace detail

template <class T>
struct codec<array_view<T>> {
  // What the library knows of the encoding (core/codec_facts.hpp). A decoded
  // value points into the input bytes (core/shape.hpp, borrows_input_v).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = detail::std_codec::length_prefix_min<Opts>, .has_size = true, .borrows = true};
  using view_type = array_view<T>;
  // Same bytes as std::vector<T>, so the same schema fingerprint.
  using schema_equivalent = std::vector<T>;

  template <class W>
  static bool write(W& w, const view_type& v) {
    detail::std_codec::refuse_pointers<W::opts, T>();
    constexpr bool to_little = detail::little_endian_element<W::opts, T>();
    // The stored bytes are already the encoding when they are T's object bytes
    // and the format copies those, or when they are little-endian scalars and
    // the format being written encodes T that way.
    const bool in_place = v.swaps_bytes() ? to_little : detail::bulk_copyable<W::opts, T>;
    if (in_place) {
      if (!(w.reserve(detail::std_codec::length_prefix_size<W::opts>(v.size()) + v.size_bytes()) &&
            w.write_length(v.size())))
        return false;
      return v.empty() || w.write_bytes(v.bytes().data(), v.size_bytes());
    }
    if (!w.write_length(v.size())) return false;
    for (const T element : v)
      if (!::bin_serializer::serialize_field(w, element)) return false;
    return true;
  }

  template <options Opts>
  static constexpr std::size_t size(const view_type& v) {
    return detail::std_codec::length_prefix_size<Opts>(v.size()) +
           detail::std_codec::elements_size<Opts, T>(v, v.size());
  }

  template <class R>
  static bool read(R& r, view_type& v) {
    static_assert(R::contiguous,
                  "bin_serializer: an array_view<T> points into the input bytes, so it can only "
                  "be decoded from a contiguous source (Buffer, FixedBuffer<N>, BufferView). "
                  "Read the message into one of those first, or decode into a std::vector<T>.");
    static_assert(detail::viewable_element<R::opts, T>(),
                  "bin_serializer: array_view<T> can only view elements whose encoding is their "
                  "object bytes in this format: arithmetic types, enums, trivially copyable "
                  "structs (in the portable format: without padding, no reflect()). Decode this "
                  "member as a std::vector<T> instead, e.g.\n"
                  "    std::vector<Acceleration> acceleration;");
    detail::std_codec::refuse_pointers<R::opts, T>();
    if constexpr (!R::contiguous) {
      return false; // refused above; no second error about take()
    } else {
      std::size_t n = 0;
      if (!r.read_length(n, sizeof(T))) return false;
      const std::size_t at = r.position();
      const std::byte* p = r.take(n * sizeof(T));
      if (p == nullptr) return false;
      if constexpr (detail::shape<R::opts, T>::validates()) {
        // bool, ranged enums (and with check_trivial_members, structs holding
        // them): every element is checked once here, so access never sees an
        // invalid value.
        for (std::size_t i = 0; i < n; ++i) {
          alignas(T) unsigned char raw[sizeof(T)];
          std::memcpy(raw, p + i * sizeof(T), sizeof(T));
          if constexpr (!detail::bulk_copyable<R::opts, T>) {
            // portable scalar on a big-endian host: check the decoded value
            typename detail::uint_of_size<sizeof(T)>::type bits;
            std::memcpy(&bits, raw, sizeof bits);
            const T value = detail::from_little<T>(bits);
            std::memcpy(raw, &value, sizeof(T));
          }
          const std::size_t bad = detail::shape<R::opts, T>::invalid_at(raw);
          if (bad != detail::no_invalid_byte) [[unlikely]]
            return r.fail(errc::invalid_value, at + i * sizeof(T) + bad);
        }
      }
      v = view_type::from_bytes(p, n, !detail::bulk_copyable<R::opts, T>);
      return true;
    }
  }
};

} // namespace bin_serializer
