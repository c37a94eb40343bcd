// The codec contract: what a codec<T> states about its encoding, in one typed
// declaration the compiler checks.
//
//   template <> struct bin_serializer::codec<Money> {
//     template <options Opts>
//     static constexpr codec_facts facts{.min_size = 1, .max_size = 10, .has_size = true};
//     template <class W> static bool write(W&, const Money&);
//     template <class R> static bool read(R&, Money&);
//     template <options Opts> static std::size_t size(const Money&);
//   };
//
// Every field has a default, so a codec names only what it knows, and a
// misspelt field does not compile (designated initialisers). The facts may
// depend on the format (Opts: a varint's size, whether a block is the host's
// bytes), so they are a variable template; a codec whose facts never depend
// on it may declare `static constexpr codec_facts facts{...};` instead.
// core/shape.hpp's codec category reads nothing else.
//
// The functions a codec may provide besides write and read are tied to the
// facts: a fact says it is there, and a codec that states facts fails to
// compile when one is missing or present without its fact
// (codec_facts_of below). schema(h), schema_equivalent and schema_id
// (core/schema_tokens.hpp): exactly one, checked where the fingerprint is
// computed.
//
// A codec that states no facts (written for release 0.1) is read the 0.1 way:
// each member found by name (min_size<Opts>, max_size<Opts>, ...; see
// legacy_codec_facts). That path is deprecated; a codec that states facts
// and also declares one of those members is a compile error naming it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../options.hpp"

namespace bin_serializer {

template <class T>
struct codec; // core/extension.hpp: the extension point

struct codec_facts {
  // The default of max_size: no constant bounds the encoding.
  static constexpr std::size_t unbounded = static_cast<std::size_t>(-1);

  // Fewest bytes any value encodes to. A container's count check divides the
  // input left by its element's min_size before allocating, so 0 (the
  // default: "might write nothing") is always correct but lets a hostile
  // count claim more elements.
  std::size_t min_size = 0;
  // Most bytes any value encodes to, or unbounded. A bounded type has
  // max_serialized_size_v, fits a FixedBuffer, and its containers are read
  // with one bounds check for all elements.
  std::size_t max_size = unbounded;
  // Bytes of every value when it may join a run of fixed-size fields
  // (core/run_layout.hpp): write and read then get a cursor that offers only
  // write_bytes / reserve / fail / position and read_bytes / take / fail /
  // position / remaining, and must move exactly run_size bytes. 0: never in
  // a run. With object_bytes it defaults to sizeof(T).
  std::size_t run_size = 0;
  // The encoding IS the object representation (sizeof(T) bytes) and decoding
  // accepts any such bytes: runs and containers of T are one copy. Then
  // min_size, max_size and run_size default to sizeof(T).
  bool object_bytes = false;
  // Inside a struct copied as one block (core/classify.hpp), a value may be
  // copied with the struct although its own encoding is not object_bytes:
  // its object bytes are what it writes, and its checks are the block's
  // (validates; std::array of bool). object_bytes implies it.
  bool in_block = false;
  // The object bytes hold values to check (bool, a ranged enum): the codec
  // provides  template <options Opts> static std::size_t invalid_at(const
  // unsigned char* p) noexcept;  giving the first bad byte of an object at p,
  // or detail::no_invalid_byte (core/validate.hpp). Asked inside block copies.
  bool validates = false;
  // The codec provides  template <options Opts> static std::size_t size(const
  // T&);  the exact encoded size. Without it serialized_size runs write()
  // against a counting writer.
  bool has_size = false;
  // The codec provides  template <options Opts> static std::size_t
  // size_bound(const T&);  at least size(), cheaper where leaves vary in size
  // (what serialize() reserves in compact). Without it: max_size when
  // bounded, else size().
  bool has_size_bound = false;
  // size() is exact, so a message holding T may be sized once and written
  // unchecked (cursor/presized_writer.hpp). Requires has_size. Only the
  // codec's own part: the parts `elements` lists are asked too (a vector of
  // a type whose size is not trusted is not), so the facts never depend on
  // them (a recursive type's facts would depend on themselves). A codec whose
  // size() could disagree with write() must leave it false.
  bool trusted_size = false;
  // Holds no nested values (a string): decoding it does not count against
  // options::max_depth.
  bool leaf = false;
  // A decoded value points into the input bytes (a view): borrows_input_v.
  // false: it borrows when one of its parts does, the types `elements` lists
  // (using elements = detail::type_list<...>;) or, without that line, its
  // non-empty template arguments.
  bool borrows = false;
};

namespace detail {

// Whether a codec declares one of the 0.1 members (found by name, so a typo
// was silent; still read for codecs that state no facts). Each name is tried
// as a plain member first, then as a template over the options: GCC rejects
// `C::template X<Opts>` outright when X is not a template, instead of
// failing the requirement.
template <options Opts, class C>
concept legacy_codec_member =
    requires { C::min_size; } || requires { C::template min_size<Opts>; } ||
    requires { C::max_size; } || requires { C::template max_size<Opts>; } ||
    requires { C::exact_size; } || requires { C::template exact_size<Opts>; } ||
    requires { C::object_bytes; } || requires { C::template object_bytes<Opts>; } ||
    requires { C::trusted_size; } || requires { C::template trusted_size<Opts>; } ||
    requires { C::validates; } || requires { C::template validates<Opts>; } ||
    requires { C::leaf; } || requires { C::borrows; };

// (std::is_same_v, not std::same_as: clang 19 crashes on the concept when a
// declaration did not compile.)
template <class C>
concept facts_for_all_formats =
    requires { requires std::is_same_v<std::remove_cv_t<decltype(C::facts)>, codec_facts>; };
template <options Opts, class C>
concept facts_per_format = !facts_for_all_formats<C> && requires {
  requires std::is_same_v<std::remove_cv_t<decltype(C::template facts<Opts>)>, codec_facts>;
};
template <options Opts, class C>
concept states_facts = facts_for_all_formats<C> || facts_per_format<Opts, C>;

template <options Opts, class C, class T>
concept codec_has_size =
    requires(const T& v) { static_cast<std::size_t>(C::template size<Opts>(v)); };
template <options Opts, class C, class T>
concept codec_has_size_bound =
    requires(const T& v) { static_cast<std::size_t>(C::template size_bound<Opts>(v)); };
template <options Opts, class C>
concept codec_has_invalid_at =
    requires(const unsigned char* p) { static_cast<std::size_t>(C::template invalid_at<Opts>(p)); };

// The 0.1 contract: every member looked up by name.
template <options Opts, class C, class T>
consteval codec_facts legacy_codec_facts() {
  codec_facts f;
  if constexpr (requires { C::template object_bytes<Opts>; })
    f.object_bytes = bool{C::template object_bytes<Opts>};
  if constexpr (requires { C::template min_size<Opts>; })
    f.min_size = std::size_t{C::template min_size<Opts>};
  else if (f.object_bytes)
    f.min_size = sizeof(T);
  if constexpr (requires { C::template max_size<Opts>; })
    f.max_size = std::size_t{C::template max_size<Opts>};
  if (f.object_bytes)
    f.run_size = sizeof(T);
  else if constexpr (requires { C::template exact_size<Opts>; })
    f.run_size = std::size_t{C::template exact_size<Opts>};
  if constexpr (requires { C::template trusted_size<Opts>; })
    f.trusted_size = bool{C::template trusted_size<Opts>};
  if constexpr (requires { C::template validates<Opts>; })
    f.validates = bool{C::template validates<Opts>};
  if constexpr (requires { requires C::leaf; }) f.leaf = true;
  if constexpr (requires { C::borrows; }) f.borrows = bool{C::borrows};
  f.has_size = codec_has_size<Opts, C, T>;
  f.has_size_bound = codec_has_size_bound<Opts, C, T>;
  return f;
}

template <options Opts, class C>
consteval codec_facts declared_facts() {
  if constexpr (facts_per_format<Opts, C>)
    return C::template facts<Opts>;
  else
    return C::facts;
}

// Whether the declaration is a constant: not when it did not compile (a
// misspelt field), whose error is then the only one.
template <options Opts, class C>
concept facts_are_constant =
    requires { typename std::bool_constant<(declared_facts<Opts, C>(), true)>; };

// The facts of codec C (of T) in format Opts, with the defaults object_bytes
// implies filled in, and checked against the functions C provides.
template <options Opts, class C, class T>
consteval codec_facts codec_facts_of() {
  if constexpr (!states_facts<Opts, C>) {
    return legacy_codec_facts<Opts, C, T>();
  } else if constexpr (!facts_are_constant<Opts, C>) {
    return codec_facts{};
  } else {
    constexpr codec_facts f = declared_facts<Opts, C>();
    static_assert(!legacy_codec_member<Opts, C>,
                  "bin_serializer: this codec states `facts` and also a 0.1-style member "
                  "(min_size, max_size, exact_size, object_bytes, trusted_size, validates, leaf "
                  "or borrows), which would be ignored. State it as a field of codec_facts "
                  "(core/codec_facts.hpp; exact_size is .run_size) and remove the member.");
    static_assert(f.has_size == codec_has_size<Opts, C, T>,
                  "bin_serializer: a codec's facts say .has_size = true exactly when it "
                  "provides  template <options Opts> static std::size_t size(const T&);  "
                  "(core/codec_facts.hpp). One of the two is missing or misspelt.");
    static_assert(f.has_size_bound == codec_has_size_bound<Opts, C, T>,
                  "bin_serializer: a codec's facts say .has_size_bound = true exactly when it "
                  "provides  template <options Opts> static std::size_t size_bound(const T&);  "
                  "(core/codec_facts.hpp). One of the two is missing or misspelt.");
    static_assert(f.validates == codec_has_invalid_at<Opts, C>,
                  "bin_serializer: a codec's facts say .validates = true exactly when it "
                  "provides  template <options Opts> static std::size_t invalid_at(const "
                  "unsigned char*) noexcept;  (core/codec_facts.hpp).");
    static_assert(!f.trusted_size || f.has_size,
                  "bin_serializer: .trusted_size = true says the codec's size() is exact; it "
                  "needs .has_size = true and that function.");
    static_assert(
        f.min_size <= f.max_size && (f.run_size == 0 || f.run_size <= f.max_size),
        "bin_serializer: a codec's facts need min_size <= max_size and run_size <= " "max_size.");
    codec_facts out = f;
    if (out.object_bytes) {
      if (out.min_size == 0) out.min_size = sizeof(T);
      if (out.max_size == codec_facts::unbounded) out.max_size = sizeof(T);
      if (out.run_size == 0) out.run_size = sizeof(T);
    }
    return out;
  }
}

// Computed once per type and format; what every reader of a codec's facts
// asks (core/shape.hpp, core/classify.hpp).
template <options Opts, class T>
inline constexpr codec_facts facts_of_codec = codec_facts_of<Opts, codec<T>, T>();

} // namespace detail

} // namespace bin_serializer
