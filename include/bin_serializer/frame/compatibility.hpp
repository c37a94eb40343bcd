// compatibility<Old, New, Opts>: can data written by one version of a type be
// read by the other, in format Opts.format? Decided at compile time from the
// two C++ types, by the rules of docs/evolution.md (the same rules as
// `python -m bin_serializer check OLD.json NEW.json` applies to descriptions):
//
//   static_assert(bin_serializer::check_compatible<SettingsV3, SettingsV4>());
//
// fails to compile when a change breaks old data, and the error names the
// first offending field and why, e.g.
//   breaking_change<"limits.max_users", "narrowed (4 -> 2 bytes)">
// compatibility<Old, New, Opts>::reads_old / reads_new / field / why answer the
// same question as values.
//
// Two types are compatible when they encode the same way (same complete
// structure: fingerprint, plus every version of evolvable structs inside), or
// when both are evolvable structs (reflect/evolution.hpp) such that
//   - Old's versions<...> are the first versions of New's (a field appended
//     in a new version is fine; editing a published version's count, or
//     dropping fields or versions, breaks old data: retire them instead);
//   - each field Old has is, in New, at the same index (a field of Old's whose
//     name is found at another index of New was reordered) with a compatible
//     type: the same encoding, retired<U> and U being the same; evolvable
//     structs by these rules; in a format where integers are varints
//     (compact), an integer of the same signedness with more bytes
//     (widened; fewer bytes is narrowed: New cannot read every old value).
// A rename is compatible: names are never on the wire.
//
// Not included by bin_serializer.hpp (nothing on the encode or decode path
// needs it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../core/evolution_fields.hpp"
#include "../core/evolution_io.hpp"
#include "../core/shape.hpp"
#include "../std/string.hpp"
#include "../reflect/field_names.hpp"
#include "schema_hash.hpp"

namespace bin_serializer {

namespace detail::compat {

enum class change : unsigned char {
  none,
  widened,        // New reads every old value; Old refuses new values out of its range
  narrowed,       // Old's data may hold values New cannot
  retyped,        // another encoding
  reordered,      // a field moved to another index
  removed,        // a field or version of Old's is gone from New
  version_edited, // a published version's field count differs
};

// One finding: what changed, at which field (a dotted path), and why, as text.
struct finding {
  change what = change::none;
  std::array<char, 240> path{};
  std::size_t path_len = 0;
  std::array<char, 80> why{};
  std::size_t why_len = 0;

  constexpr void add_path(std::string_view s) {
    for (char c : s)
      if (path_len + 1 < path.size()) path[path_len++] = c;
  }
  constexpr void add_why(std::string_view s) {
    for (char c : s)
      if (why_len + 1 < why.size()) why[why_len++] = c;
  }
  constexpr void add_why(std::size_t v) {
    char digits[20];
    std::size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n != 0) add_why(std::string_view{&digits[--n], 1});
  }
};

// Which changes a direction of reading tolerates: a reader of New on Old's
// data tolerates a widening; a reader of Old on New's data tolerates a
// widening (values that fit; others are refused, cleanly) and a narrowing.
enum class direction : unsigned char { new_reads_old, old_reads_new };

constexpr bool tolerated(change c, direction d) {
  return c == change::none || c == change::widened ||
         (c == change::narrowed && d == direction::old_reads_new);
}

template <class T>
struct unretire {
  using type = T;
};
template <class U, auto... V>
struct unretire<retired<U, V...>> {
  using type = U;
};
template <class T>
using unretire_t = typename unretire<std::remove_cv_t<T>>::type;

template <std::size_t I, class... Ts>
auto type_at(type_list<Ts...>) -> std::tuple_element_t<I, std::tuple<Ts...>>;
template <std::size_t I, class T>
using field_type = unretire_t<decltype(type_at<I>(member_types_t<T>{}))>;

template <options Opts, class T>
inline constexpr std::uint64_t complete_hash = schema::compute_complete<Opts, T>();

// An integer the format writes in a varying number of bytes (a varint).
template <options Opts, class T>
consteval bool varint_integer() {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_type<T>)
    return shape<Opts, T>::min_size() != shape<Opts, T>::max_size();
  else
    return false;
}

inline constexpr std::string_view positional_prefix = "field";

// A name a reader could not have chosen (reflect() without declared names).
constexpr bool positional(std::string_view name) {
  if (name.size() <= positional_prefix.size() || name.substr(0, 5) != positional_prefix)
    return false;
  for (char c : name.substr(5))
    if (c < '0' || c > '9') return false;
  return true;
}

template <options Opts, class O, class N>
constexpr finding compare_evolvable(direction d, finding at);

// Old's field type against New's, at `at` (the field's path).
template <options Opts, class O, class N>
constexpr finding compare_type(direction d, finding at) {
  if constexpr (evolvable_type<O> && evolvable_type<N>) {
    return compare_evolvable<Opts, O, N>(d, at);
  } else {
    if constexpr (!evolvable_type<O> && !evolvable_type<N>) {
      if (complete_hash<Opts, O> == complete_hash<Opts, N>) return finding{};
      if constexpr (varint_integer<Opts, O>() && varint_integer<Opts, N>() &&
                    std::is_signed_v<O> == std::is_signed_v<N>) {
        at.what = sizeof(N) > sizeof(O) ? change::widened : change::narrowed;
        at.add_why(at.what == change::widened ? "widened (" : "narrowed (");
        at.add_why(sizeof(O));
        at.add_why(" -> ");
        at.add_why(sizeof(N));
        at.add_why(" bytes)");
        return at;
      }
    }
    at.what = change::retyped;
    at.add_why("retyped (another encoding)");
    return at;
  }
}

// Field I of both: where it went (by name), then its type.
template <options Opts, class O, class N, std::size_t I>
constexpr finding compare_field(direction d, const finding& outer) {
  constexpr auto& old_names = field_names_v<O>;
  constexpr auto& new_names = field_names_v<N>;
  finding at = outer;
  if (at.path_len != 0) at.add_path(".");
  at.add_path(old_names[I]);
  if (!positional(old_names[I])) {
    for (std::size_t j = 0; j < evolvable_field_count<N>(); ++j) {
      if (j != I && new_names[j] == old_names[I]) {
        at.what = change::reordered;
        at.add_why("reordered (was field ");
        at.add_why(I);
        at.add_why(", now field ");
        at.add_why(j);
        at.add_why(")");
        return at;
      }
    }
  }
  return compare_type<Opts, field_type<I, O>, field_type<I, N>>(d, at);
}

template <options Opts, class O, class N>
constexpr finding compare_evolvable(direction d, finding at) {
  static_assert(check_evolvable<O>() && check_evolvable<N>());
  constexpr auto old_counts = evolution_counts<O>;
  constexpr auto new_counts = evolution_counts<N>;
  constexpr std::size_t shared = std::min(old_counts.size(), new_counts.size());
  constexpr auto& old_names = field_names_v<O>;
  auto at_field = [&](std::string_view name) {
    finding f = at;
    if (f.path_len != 0) f.add_path(".");
    f.add_path(name);
    return f;
  };
  for (std::size_t k = 0; k < shared; ++k) {
    if (old_counts[k] != new_counts[k]) {
      // The first field whose version differs.
      const std::size_t first = std::min(old_counts[k], new_counts[k]);
      finding f =
          at_field(first < evolvable_field_count<O>() ? old_names[first] : field_names_v<N>[first]);
      f.what = change::version_edited;
      f.add_why("version ");
      f.add_why(k + 1);
      f.add_why("'s field count edited (");
      f.add_why(old_counts[k]);
      f.add_why(" -> ");
      f.add_why(new_counts[k]);
      f.add_why(")");
      return f;
    }
  }
  // Fields of both, in order; then what New lacks.
  constexpr std::size_t both = std::min(evolvable_field_count<O>(), evolvable_field_count<N>());
  finding first{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (void)((first = compare_field<Opts, O, N, I>(d, at), tolerated(first.what, d)) && ...);
  }(std::make_index_sequence<both>{});
  if (!tolerated(first.what, d)) return first;
  if constexpr (old_counts.size() > new_counts.size()) {
    finding f = at_field(old_names[evolvable_field_count<N>()]);
    f.what = change::removed;
    f.add_why("removed (retire it instead: retired<T>)");
    return f;
  }
  return finding{};
}

template <options Opts, class O, class N>
constexpr finding compare(direction d) {
  using A = std::remove_cv_t<O>;
  using B = std::remove_cv_t<N>;
  if constexpr (evolvable_type<A> && evolvable_type<B>) {
    return compare_evolvable<Opts, A, B>(d, finding{});
  } else {
    finding f = compare_type<Opts, A, B>(d, finding{});
    if (f.what != change::none && f.path_len == 0) f.add_path("<root>");
    return f;
  }
}

// A string as a template argument, so that a diagnostic prints it.
template <std::size_t N>
struct text {
  char s[N]{};
  // The first N - 1 characters of p, padded with spaces where p ends first.
  consteval text(const char* p, std::size_t n) {
    for (std::size_t i = 0; i + 1 < N; ++i) s[i] = i < n ? p[i] : ' ';
  }
};

template <text Field, text Why>
struct breaking_change {
  static_assert(dependent_false<decltype(Field)>,
                "bin_serializer: the new type cannot read data the old one wrote, or the reverse: "
                "breaking_change<FIELD, WHY> above names the field and the change "
                "(docs/evolution.md says which changes are safe)");
  static constexpr bool ok = true; // one error: this one
};

} // namespace detail::compat

// Whether data written as Old can be read as New (reads_old) and data written
// as New as Old (reads_new), in format Opts.format; where they cannot, the
// first field that breaks it (a dotted path) and why.
template <class Old, class New, options Opts = portable>
struct compatibility {
private:
  static constexpr options format_only{.format = Opts.format};
  static constexpr detail::compat::finding old_data =
      detail::compat::compare<format_only, Old, New>(detail::compat::direction::new_reads_old);
  static constexpr detail::compat::finding new_data =
      detail::compat::compare<format_only, Old, New>(detail::compat::direction::old_reads_new);
  static constexpr const detail::compat::finding& first =
      !detail::compat::tolerated(old_data.what, detail::compat::direction::new_reads_old)
          ? old_data
          : new_data;

public:
  static constexpr bool reads_old =
      detail::compat::tolerated(old_data.what, detail::compat::direction::new_reads_old);
  static constexpr bool reads_new =
      detail::compat::tolerated(new_data.what, detail::compat::direction::old_reads_new);
  static constexpr bool value = reads_old && reads_new;
  // The first offending field and why ("" when compatible).
  static constexpr std::string_view field =
      value ? std::string_view{} : std::string_view{first.path.data(), first.path_len};
  static constexpr std::string_view why =
      value ? std::string_view{} : std::string_view{first.why.data(), first.why_len};
};

template <class Old, class New, options Opts = portable>
inline constexpr bool compatible_v = compatibility<Old, New, Opts>::value;

// true, or a compile error naming the field (see the top of this file).
template <class Old, class New, options Opts = portable>
consteval bool check_compatible() {
  using c = compatibility<Old, New, Opts>;
  if constexpr (c::value) {
    return true;
  } else {
    // Clang 19 prints a char array holding 8 or 16 characters as numbers: one
    // space more keeps the field's name readable.
    constexpr std::size_t field_len =
        c::field.size() + 1 + (c::field.size() == 8 || c::field.size() == 16 ? 1 : 0);
    constexpr std::size_t why_len = c::why.size() + 1;
    return detail::compat::breaking_change<
        detail::compat::text<field_len>(c::field.data(), c::field.size()),
        detail::compat::text<why_len>(c::why.data(), c::why.size())>::ok;
  }
}

} // namespace bin_serializer
