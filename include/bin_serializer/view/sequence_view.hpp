// sequence_view<T>: a read-only, non-owning view of a run of encoded T
// elements (structs of views, strings, anything decodable), decoded one at a
// time while iterating. It is to std::vector<T> what array_view<T> is for
// trivially copyable elements, for the elements array_view cannot point at:
// those whose encoding is not their object bytes.
//
//   struct CarView {
//     ...
//     bin_serializer::sequence_view<FuelFigureView> fuel_figures;  // was std::vector<FuelFigure>
//   };
//   for (const FuelFigureView& f : car.fuel_figures) use(f.usage_description);
//
// Wire: [count][count elements], the bytes of std::vector<T> (the count is the
// format's length prefix, format/<name>.hpp).
//
// Why it exists: decoding into std::vector<FuelFigureView> allocates the
// vector the first time. A sequence_view allocates never: decoding checks
// every element once (with the call's options, so hostile bytes fail
// deserialize() as usual) and keeps only a pointer, a byte length and the
// count. Iterating decodes each element again from those bytes into a T held
// by the iterator (T must be default constructible and copyable; keep it made
// of views, or the iteration allocates for it). The price is that second
// decode, paid on every traversal, and forward-only access: there is no
// operator[] (use to_vector() for random access).
//
// Format: the element bytes are those of one wire format, fixed by the
// Format parameter; decoding in another format does not compile (a message
// shows the type to declare). Lifetime: as for array_view, the view is valid
// while the input bytes are alive and unchanged (docs/zero-copy.md). If they
// change anyway, iteration stops early at the first element that no longer
// decodes; it never reads outside the recorded bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <vector>

#include "../buffer/buffer_view.hpp"
#include "../core/decode.hpp"
#include "../options.hpp"
#include "../core/encode.hpp"
#include "../core/size.hpp"
#include "../std/codec_support.hpp"

namespace bin_serializer {

template <class T, wire_format Format = wire_format::native>
class sequence_view {
  static_assert(std::is_default_constructible_v<T> && std::is_copy_constructible_v<T> &&
                    !std::is_const_v<T> && !std::is_reference_v<T>,
                "bin_serializer: sequence_view<T> decodes each element into a T it holds, so T "
                "must be a default constructible, copyable, non-const object type");

  // Iteration re-decodes bytes that were checked with the caller's options;
  // only the format matters for the values, so the cheapest options of that
  // format are used (same values, no repeated checks).
  static constexpr options iteration_opts{
      .format = Format, .max_depth = unlimited, .validate_values = false};

public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  static constexpr wire_format format = Format;

  // Forward iterator: holds the current element, decoded.
  class iterator {
  public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = const T&;
    using pointer = const T*;

    iterator() = default;
    const T& operator*() const noexcept { return value_; }
    const T* operator->() const noexcept { return &value_; }
    iterator& operator++() {
      cur_ = next_;
      --left_;
      load();
      return *this;
    }
    iterator operator++(int) {
      iterator t = *this;
      ++*this;
      return t;
    }
    // Iterators of one view: equal when as many elements are left.
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.left_ == b.left_;
    }
    friend bool operator==(const iterator& a, std::default_sentinel_t) noexcept {
      return a.left_ == 0;
    }

  private:
    friend class sequence_view;
    iterator(const std::byte* p, const std::byte* end, std::size_t count)
        : cur_(p), end_(end), left_(count) {
      load();
    }
    void load() {
      if (left_ == 0) return;
      BufferView in(cur_, static_cast<std::size_t>(end_ - cur_));
      if (!::bin_serializer::deserialize<iteration_opts>(in, value_)) [[unlikely]] {
        left_ = 0; // the bytes changed under the view: stop, never read past them
        return;
      }
      next_ = cur_ + in.read_position();
    }

    const std::byte* cur_ = nullptr;
    const std::byte* next_ = nullptr;
    const std::byte* end_ = nullptr;
    std::size_t left_ = 0;
    T value_{};
  };

  constexpr sequence_view() noexcept = default;

  // `count` elements encoded in Format, exactly filling `bytes` (the caller
  // vouches for them: this is what decoding does after checking every one).
  static sequence_view from_bytes(std::span<const std::byte> bytes, std::size_t count) noexcept {
    sequence_view v;
    v.data_ = bytes.data();
    v.size_bytes_ = bytes.size();
    v.size_ = count;
    return v;
  }

  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  // The elements' encoding in place (without the count prefix).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_bytes_}; }

  [[nodiscard]] iterator begin() const { return iterator(data_, data_ + size_bytes_, size_); }
  [[nodiscard]] iterator end() const noexcept { return iterator(); }

  // An owning copy of the decoded elements (allocates).
  [[nodiscard]] std::vector<T> to_vector() const {
    std::vector<T> out;
    out.reserve(size_);
    for (const T& element : *this) out.push_back(element);
    return out;
  }

private:
  const std::byte* data_ = nullptr;
  std::size_t size_bytes_ = 0;
  std::size_t size_ = 0;
};

template <class T, wire_format Format>
struct codec<sequence_view<T, Format>> {
  // What the library knows of the encoding (core/codec_facts.hpp). A decoded
  // value points into the input bytes (core/shape.hpp, borrows_input_v).
  template <options Opts>
  static constexpr codec_facts facts{
      .min_size = detail::std_codec::length_prefix_min<Opts>, .has_size = true, .borrows = true};
  using view_type = sequence_view<T, Format>;
  // Same bytes as std::vector<T>, so the same schema fingerprint.
  using schema_equivalent = std::vector<T>;

  template <class W>
  static bool write(W& w, const view_type& v) {
    if constexpr (W::opts.format == Format) {
      // The stored bytes are already this format's encoding: one copy.
      const auto bytes = v.bytes();
      if (!(w.reserve(detail::std_codec::length_prefix_size<W::opts>(v.size()) + bytes.size()) &&
            w.write_length(v.size())))
        return false;
      return bytes.empty() || w.write_bytes(bytes.data(), bytes.size());
    } else {
      if (!w.write_length(v.size())) return false;
      return detail::std_codec::write_each(w, v);
    }
  }

  template <options Opts>
  static constexpr std::size_t size(const view_type& v) {
    if constexpr (Opts.format == Format)
      return detail::std_codec::length_prefix_size<Opts>(v.size()) + v.bytes().size();
    else
      return detail::std_codec::length_prefix_size<Opts>(v.size()) +
             detail::std_codec::elements_size<Opts, T>(v, v.size());
  }

  template <class R>
  static bool read(R& r, view_type& v) {
    static_assert(R::contiguous,
                  "bin_serializer: a sequence_view<T> points into the input bytes, so it can "
                  "only be decoded from a contiguous source (Buffer, FixedBuffer<N>, "
                  "BufferView). Read the message into one of those first, or decode into a "
                  "std::vector<T>.");
    if constexpr (R::opts.format != Format) // one message, without the comparison spelled out
      static_assert(detail::dependent_false<view_type>,
                  "bin_serializer: this sequence_view's elements are decoded in another wire "
                  "format than the call's. For the portable format declare e.g.\n"
                  "    bin_serializer::sequence_view<T, bin_serializer::wire_format::portable>");
    detail::std_codec::refuse_pointers<R::opts, T>();
    if constexpr (!R::contiguous) {
      return false; // refused above; no second error about take()
    } else {
      namespace sc = detail::std_codec;
      std::size_t n = 0;
      if (!r.read_length(n, sc::min_size_of<R::opts, T>())) return false;
      const std::byte* first = r.take(0);
      // Every element is decoded once, with the call's options and depth, so
      // hostile bytes fail here; the decoded values are dropped.
      T scratch{};
      for (std::size_t i = 0; i < n; ++i)
        if (!::bin_serializer::deserialize_field(r, scratch)) [[unlikely]]
          return false;
      const std::byte* last = r.take(0);
      v = view_type::from_bytes({first, static_cast<std::size_t>(last - first)}, n);
      return true;
    }
  }
};

} // namespace bin_serializer
