// The golden vectors: every case defined once, shared by the generator
// (tools/make_vectors.cpp) and the test (tests/format/test_vectors.cpp).
//
// A case is a name and a C++ value. Its JSON schema descriptor and JSON value
// (the contract read by python/bin_serializer/vectors.py, described in
// spec/vectors/README.md) are derived here from the value's type and from the
// struct_info / enum_info tables below, without going through the library:
// the JSON says what the value is, the .bin what the library made of it, and
// the Python package checks that the two agree.
//
//   for_each_case(f)                 calls f(name, value) for every case
//   schema_of<T>()                   the JSON type descriptor of T
//   value_of(v)                      the JSON value of v
//   json_document(name, format, v)   the text of <name>.json
//   same_value(a, b)                 equality, bit-exact for floats (NaN, -0.0)
//
// Values are built in place and handed out by reference, never copied: the
// native bytes of a padded trivially copyable struct include its padding, so
// such structs are zeroed (clear_bytes) before their fields are assigned, and
// a copy could bring back indeterminate padding.
#pragma once

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include "workloads/evolving.hpp"
#include "workloads/workloads.hpp"

#include <array>
#include <bit>
#include <bitset>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace vector_cases {

// The native vectors are the bytes of a little-endian LP64 host with
// libstdc++ (x86-64 Linux: sizes, alignment, std::bitset's 8-byte words).
// Elsewhere only the portable vectors (and native round trips) are checked.
#if defined(__GLIBCXX__)
inline constexpr bool libstdcxx = true;
#else
inline constexpr bool libstdcxx = false;
#endif
inline constexpr bool native_vectors_apply = std::endian::native == std::endian::little &&
                                             sizeof(void*) == 8 && sizeof(long) == 8 && libstdcxx;

// ---------------------------------------------------------------------------
// Types used only by the vectors (named namespace on purpose: see the note in
// tests/format/test_std_portable.cpp about clang and aggregates with internal linkage).
// ---------------------------------------------------------------------------

enum class Level : std::int16_t { low = -1, mid = 0, high = 300 };

// Trivially copyable, no padding: 8 bytes.
struct Point {
  std::int32_t x;
  std::int32_t y;
  bool operator==(const Point&) const = default;
};

// Trivially copyable with padding (x86-64: 3 bytes after tag, 6 after flags,
// 7 at the end; sizeof 32, 18 bytes of fields).
struct Padded {
  std::uint8_t tag;
  std::uint32_t count;
  std::uint16_t flags;
  double ratio;
  bool enabled;
  bool operator==(const Padded&) const = default;
};

// Trivially copyable, padding-free: 16 bytes whose memory on a little-endian
// host is exactly their portable encoding (one copy in both formats).
struct Packed {
  std::uint32_t id;
  std::int16_t dx;
  std::uint8_t kind;
  bool visible;
  float weight;
  std::array<std::uint16_t, 2> pair;
  bool operator==(const Packed&) const = default;
};

// Trivially copyable, nested structs and arrays, padding inside and at the end.
struct Shape {
  workloads::Color color;
  Point origin;
  std::array<Point, 2> corners;
  std::int8_t layer;
  Level level;
  bool operator==(const Shape&) const = default;
};

// Trivially copyable, holding an array of padded structs (native: one copy of
// sizeof(Holder) bytes, the padding of the elements and its own included).
struct Holder {
  std::uint8_t head;
  std::array<Padded, 2> items;
  std::uint16_t tail;
  bool operator==(const Holder&) const = default;
};

struct Inner {
  std::string label;
  std::vector<std::int32_t> values;
  bool operator==(const Inner&) const = default;
};

// Not trivially copyable; holds every kind of member, including a padded
// trivially copyable one (bulk-copied with its padding in the native format).
struct Outer {
  std::uint32_t id;
  Inner inner;
  std::optional<Inner> maybe;
  std::vector<Inner> items;
  std::map<std::string, Point> points;
  std::variant<std::monostate, Point, std::string> choice;
  Padded raw;
  std::set<std::int16_t> tags;
  std::tuple<std::uint8_t, std::string, Level> triple;
  std::bitset<12> mask;
  std::chrono::milliseconds timeout;
  bool operator==(const Outer&) const = default;
};

// A framed message whose type declares a message type id (the framed/ vectors
// only): its header is 32 bytes, flags bit 1 set, type_id 42.
struct Quote {
  std::uint64_t ts;
  double px;
  static constexpr std::uint32_t bin_serializer_message_id = 42;
  bool operator==(const Quote&) const = default;
};

// ---------------------------------------------------------------------------
// Names for the JSON descriptors: struct name, field names in wire order and
// the members themselves (std::tie), written out independently of the
// library's aggregate reflection.
// ---------------------------------------------------------------------------

template <class T>
struct struct_info {};

template <class E>
struct enum_info {};

#define VECTOR_CASES_STRUCT(Type, Name, ...)                     \
  template <>                                                    \
  struct struct_info<Type> {                                     \
    static constexpr std::string_view struct_name = Name;        \
    static auto members(const Type& v) {                         \
      [[maybe_unused]] const auto& [__VA_ARGS__] = v;            \
      return std::tie(__VA_ARGS__);                              \
    }                                                            \
    static constexpr std::string_view field_list = #__VA_ARGS__; \
  }

#define VECTOR_CASES_ENUM(Type, Name)                   \
  template <>                                           \
  struct enum_info<Type> {                              \
    static constexpr std::string_view enum_name = Name; \
  }

// Structured bindings in members() require every field to be listed, in
// declaration order: a struct that gains a field fails to compile here.
VECTOR_CASES_STRUCT(Point, "Point", x, y);
VECTOR_CASES_STRUCT(Padded, "Padded", tag, count, flags, ratio, enabled);
VECTOR_CASES_STRUCT(Packed, "Packed", id, dx, kind, visible, weight, pair);
VECTOR_CASES_STRUCT(Shape, "Shape", color, origin, corners, layer, level);
VECTOR_CASES_STRUCT(Holder, "Holder", head, items, tail);
VECTOR_CASES_STRUCT(Inner, "Inner", label, values);
VECTOR_CASES_STRUCT(Outer, "Outer", id, inner, maybe, items, points, choice, raw, tags, triple,
                    mask, timeout);
VECTOR_CASES_STRUCT(workloads::Person, "Person", name, id, email, scores);
VECTOR_CASES_STRUCT(Quote, "Quote", ts, px);
// Evolvable structs (workloads/evolving.hpp): the framed/ vectors only.
VECTOR_CASES_STRUCT(workloads::Limits, "Limits", max_users, max_rooms);
VECTOR_CASES_STRUCT(workloads::ProfileV1, "Profile", name, id);
VECTOR_CASES_STRUCT(workloads::ProfileV2, "Profile", name, id, email, scores);
VECTOR_CASES_STRUCT(workloads::ProfileV3, "Profile", name, id, email, scores, limits);
VECTOR_CASES_STRUCT(workloads::LimitsV1, "Limits", max_users);
VECTOR_CASES_STRUCT(workloads::RoomV1, "Room", id, limits, history, cap, flag, tail);
VECTOR_CASES_STRUCT(workloads::RoomV2, "Room", id, limits, history, cap, flag, tail);
VECTOR_CASES_STRUCT(workloads::Booster, "Booster", boost_type, horse_power);
VECTOR_CASES_STRUCT(workloads::Engine, "Engine", capacity, num_cylinders, max_rpm,
                    manufacturer_code, booster);
VECTOR_CASES_STRUCT(workloads::FuelFigure, "FuelFigure", speed, mpg, usage_description);
VECTOR_CASES_STRUCT(workloads::Acceleration, "Acceleration", mph, seconds);
VECTOR_CASES_STRUCT(workloads::PerformanceFigure, "PerformanceFigure", octane_rating, acceleration);
VECTOR_CASES_STRUCT(workloads::Car, "Car", timestamp, serial_number, model_year, available, code,
                    some_numbers, vehicle_code, extras, engine, fuel_figures, performance_figures,
                    manufacturer, model, activation_code);
VECTOR_CASES_STRUCT(workloads::Vec3, "Vec3", x, y, z);
VECTOR_CASES_STRUCT(workloads::Weapon, "Weapon", name, damage);
VECTOR_CASES_STRUCT(workloads::Monster, "Monster", pos, mana, hp, name, inventory, color, weapons,
                    equipped, path);
VECTOR_CASES_STRUCT(workloads::Tick, "Tick", timestamp_ns, symbol_id, quantity, price, side);
VECTOR_CASES_STRUCT(workloads::SmallMessage, "SmallMessage", id, is_outgoing, priority, channel,
                    flags, sequence, checksum, score, balance, time_posted, time_to_live, sender,
                    text, recipients, readings, tags);

VECTOR_CASES_ENUM(Level, "Level");
VECTOR_CASES_ENUM(workloads::Color, "Color");
VECTOR_CASES_ENUM(workloads::Model, "Model");
VECTOR_CASES_ENUM(workloads::BoostType, "BoostType");

#undef VECTOR_CASES_STRUCT
#undef VECTOR_CASES_ENUM

// ---------------------------------------------------------------------------
// Type traits for the std families.
// ---------------------------------------------------------------------------

namespace detail {

template <class T, template <class...> class Tmpl>
inline constexpr bool is_instance = false;
template <template <class...> class Tmpl, class... Ts>
inline constexpr bool is_instance<Tmpl<Ts...>, Tmpl> = true;

template <class T>
inline constexpr bool is_std_array = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array<std::array<T, N>> = true;

template <class T>
inline constexpr bool is_bitset = false;
template <std::size_t N>
inline constexpr bool is_bitset<std::bitset<N>> = true;

template <class T>
inline constexpr bool is_duration = false;
template <class R, class P>
inline constexpr bool is_duration<std::chrono::duration<R, P>> = true;

template <class T>
inline constexpr bool is_time_point = false;
template <class C, class D>
inline constexpr bool is_time_point<std::chrono::time_point<C, D>> = true;

template <class T>
concept described_struct = requires { struct_info<T>::struct_name; };
template <class T>
concept described_enum = requires { enum_info<T>::enum_name; };

template <class T>
inline constexpr bool is_sequence =
    is_instance<T, std::vector> || is_instance<T, std::list> || is_instance<T, std::deque>;

template <class T>
inline constexpr bool dependent_false = false;

template <class T>
using lim = std::numeric_limits<T>;

// "a, b,  c" -> {"a", "b", "c"}
inline std::vector<std::string_view> split_fields(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\n')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\n')) item.remove_suffix(1);
    out.push_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

inline void append_json_string(std::string& out, std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (byte < 0x20) {
      out += "\\u00";
      out += digits[byte >> 4];
      out += digits[byte & 0xF];
    } else {
      out += ch; // UTF-8 bytes pass through: the files are UTF-8
    }
  }
  out += '"';
}

// Round-trip exact: 9 significant digits identify a float, 17 a double. A
// ".0" is appended to integral-looking output so that JSON readers keep it a
// float ("-0" would otherwise read as the integer 0 and lose its sign).
template <class F>
std::string float_text(F v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[64];
  if constexpr (std::is_same_v<F, float>)
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s(buf);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

template <class T>
std::string int_name() {
  if constexpr (std::is_same_v<T, char>)
    return "i8"; // the schemas' char is signed, whatever the host's char is
  else
    return std::string(std::is_signed_v<T> ? "i" : "u") + std::to_string(sizeof(T) * 8);
}

template <class T>
std::string int_text(T v) {
  if constexpr (std::is_same_v<T, char>)
    return std::to_string(static_cast<int>(static_cast<signed char>(v)));
  else if constexpr (std::is_signed_v<T>)
    return std::to_string(static_cast<long long>(v));
  else
    return std::to_string(static_cast<unsigned long long>(v));
}

} // namespace detail

// ---------------------------------------------------------------------------
// JSON type descriptor of T.
// ---------------------------------------------------------------------------

template <class T>
std::string schema_of();

namespace detail {

template <class... Ts>
std::string schema_list() {
  std::string out = "[";
  bool first = true;
  ((out += (first ? "" : ", "), out += schema_of<Ts>(), first = false), ...);
  return out + "]";
}

template <class T, class... Ms>
std::string struct_schema(std::tuple<const Ms&...>*) {
  const std::vector<std::string_view> names = split_fields(struct_info<T>::field_list);
  std::string out = "{\"struct\": ";
  append_json_string(out, struct_info<T>::struct_name);
  // An evolvable struct is never copied as a block, even when trivially copyable.
  out += std::is_trivially_copyable_v<T> && !bin_serializer::detail::evolvable_type<T>
             ? ", \"trivial\": true"
             : ", \"trivial\": false";
  if constexpr (bin_serializer::detail::evolvable_type<T>) {
    // An evolvable struct (docs/wire-format.md section 11): its versions' field counts.
    out += ", \"versions\": [";
    for (std::size_t v = 0; v < bin_serializer::detail::evolution_counts<T>.size(); ++v)
      out += (v == 0 ? "" : ", ") + std::to_string(bin_serializer::detail::evolution_counts<T>[v]);
    out += "]";
  }
  out += ", \"fields\": [";
  std::size_t i = 0;
  ((out += (i == 0 ? "" : ", "), out += "{\"name\": ", append_json_string(out, names[i]),
    out += ", \"type\": ", out += schema_of<Ms>(), out += "}", ++i),
   ...);
  return out + "]}";
}

} // namespace detail

template <class T>
std::string schema_of() {
  using namespace detail;
  if constexpr (std::is_same_v<T, bool>)
    return "\"bool\"";
  else if constexpr (std::is_integral_v<T>)
    return "\"" + int_name<T>() + "\"";
  else if constexpr (std::is_same_v<T, float>)
    return "\"f32\"";
  else if constexpr (std::is_same_v<T, double>)
    return "\"f64\"";
  else if constexpr (std::is_enum_v<T>) {
    static_assert(described_enum<T>, "give the enum an enum_info entry");
    std::string out = "{\"enum\": ";
    append_json_string(out, enum_info<T>::enum_name);
    return out + ", \"underlying\": \"" + int_name<std::underlying_type_t<T>>() + "\"}";
  } else if constexpr (std::is_same_v<T, std::string>)
    return "\"str\"";
  else if constexpr (std::is_same_v<T, std::vector<std::uint8_t>>)
    return "\"bytes\"";
  else if constexpr (is_sequence<T>)
    return "{\"list\": " + schema_of<typename T::value_type>() + "}";
  else if constexpr (is_instance<T, std::set>)
    return "{\"set\": " + schema_of<typename T::value_type>() + "}";
  else if constexpr (is_std_array<T>)
    return "{\"array\": " + schema_of<typename T::value_type>() +
           ", \"len\": " + std::to_string(std::tuple_size_v<T>) + "}";
  else if constexpr (is_instance<T, std::optional>)
    return "{\"optional\": " + schema_of<typename T::value_type>() + "}";
  else if constexpr (is_instance<T, std::variant>)
    return []<class... As>(std::variant<As...>*) {
      return "{\"variant\": " + schema_list<As...>() + "}";
    }(static_cast<T*>(nullptr));
  else if constexpr (is_instance<T, std::tuple> || is_instance<T, std::pair>)
    return []<template <class...> class Tup, class... Es>(Tup<Es...>*) {
      return "{\"tuple\": " + schema_list<Es...>() + "}";
    }(static_cast<T*>(nullptr));
  else if constexpr (is_instance<T, std::map>)
    return "{\"map\": " + schema_list<typename T::key_type, typename T::mapped_type>() + "}";
  else if constexpr (std::is_same_v<T, std::monostate>)
    return "\"monostate\"";
  else if constexpr (is_bitset<T>)
    return "{\"bitset\": " + std::to_string(T{}.size()) + "}";
  else if constexpr (is_duration<T>)
    return "{\"duration\": " + schema_of<typename T::rep>() + "}";
  else if constexpr (is_time_point<T>)
    return schema_of<typename T::duration>(); // on the wire: time_since_epoch()
  else if constexpr (described_struct<T>) {
    using members = decltype(struct_info<T>::members(std::declval<const T&>()));
    return detail::struct_schema<T>(static_cast<members*>(nullptr));
  } else
    static_assert(dependent_false<T>, "no JSON descriptor for this type");
}

// ---------------------------------------------------------------------------
// JSON value of v.
// ---------------------------------------------------------------------------

template <class T>
void append_value(std::string& out, const T& v);

namespace detail {

template <class C>
void append_elements(std::string& out, const C& c) {
  out += '[';
  bool first = true;
  for (const typename C::value_type& e : c) {
    if (!first) out += ", ";
    first = false;
    append_value(out, e);
  }
  out += ']';
}

} // namespace detail

template <class T>
void append_value(std::string& out, const T& v) {
  using namespace detail;
  if constexpr (std::is_same_v<T, bool>)
    out += v ? "true" : "false";
  else if constexpr (std::is_integral_v<T>)
    out += int_text(v);
  else if constexpr (std::is_floating_point_v<T>)
    out += float_text(v);
  else if constexpr (std::is_enum_v<T>)
    out += int_text(static_cast<std::underlying_type_t<T>>(v));
  else if constexpr (std::is_same_v<T, std::string>)
    append_json_string(out, v);
  else if constexpr (std::is_same_v<T, std::vector<std::uint8_t>>) {
    static constexpr char digits[] = "0123456789abcdef";
    out += '"';
    for (const std::uint8_t b : v) {
      out += digits[b >> 4];
      out += digits[b & 0xF];
    }
    out += '"';
  } else if constexpr (is_sequence<T> || is_instance<T, std::set> || is_std_array<T>)
    append_elements(out, v);
  else if constexpr (is_instance<T, std::optional>) {
    if (v)
      append_value(out, *v);
    else
      out += "null";
  } else if constexpr (is_instance<T, std::variant>) {
    out += "{\"index\": " + std::to_string(v.index()) + ", \"value\": ";
    std::visit([&out](const auto& alt) { append_value(out, alt); }, v);
    out += '}';
  } else if constexpr (is_instance<T, std::tuple> || is_instance<T, std::pair>) {
    out += '[';
    std::apply(
        [&out](const auto&... es) {
          bool first = true;
          ((out += (first ? "" : ", "), append_value(out, es), first = false), ...);
        },
        v);
    out += ']';
  } else if constexpr (is_instance<T, std::map>) {
    out += '[';
    bool first = true;
    for (const auto& [key, mapped] : v) {
      if (!first) out += ", ";
      first = false;
      out += '[';
      append_value(out, key);
      out += ", ";
      append_value(out, mapped);
      out += ']';
    }
    out += ']';
  } else if constexpr (std::is_same_v<T, std::monostate>)
    out += "null";
  else if constexpr (is_bitset<T>)
    append_json_string(out, v.to_string()); // most significant bit first
  else if constexpr (is_duration<T>)
    append_value(out, v.count());
  else if constexpr (is_time_point<T>)
    append_value(out, v.time_since_epoch());
  else if constexpr (described_struct<T>) {
    const std::vector<std::string_view> names = split_fields(struct_info<T>::field_list);
    out += '{';
    std::apply(
        [&](const auto&... ms) {
          std::size_t i = 0;
          ((out += (i == 0 ? "" : ", "), append_json_string(out, names[i]), out += ": ",
            append_value(out, ms), ++i),
           ...);
        },
        struct_info<T>::members(v));
    out += '}';
  } else
    static_assert(dependent_false<T>, "no JSON value for this type");
}

template <class T>
std::string value_of(const T& v) {
  std::string out;
  append_value(out, v);
  return out;
}

// The full text of spec/vectors/<format>/<name>.json.
template <class T>
std::string json_document(std::string_view name, std::string_view format, const T& v) {
  std::string out = "{\n  \"name\": ";
  detail::append_json_string(out, name);
  out += ",\n  \"format\": ";
  detail::append_json_string(out, format);
  out += ",\n  \"schema\": " + schema_of<T>();
  out += ",\n  \"value\": " + value_of(v);
  out += "\n}\n";
  return out;
}

// ---------------------------------------------------------------------------
// Helpers for building values.
// ---------------------------------------------------------------------------

// Zeroes every byte of a trivially copyable object, padding included. Assign
// the fields afterwards (never assign a whole temporary: a copy may leave the
// padding indeterminate).
template <class T>
void clear_bytes(T& obj) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memset(static_cast<void*>(std::addressof(obj)), 0, sizeof(T));
}

inline void set_padded(Padded& p, std::uint8_t tag, std::uint32_t count, std::uint16_t flags,
                       double ratio, bool enabled) noexcept {
  clear_bytes(p);
  p.tag = tag;
  p.count = count;
  p.flags = flags;
  p.ratio = ratio;
  p.enabled = enabled;
}

inline void set_tick(workloads::Tick& t, std::uint64_t i) noexcept {
  const workloads::Tick src = workloads::make_tick(i);
  clear_bytes(t);
  t.timestamp_ns = src.timestamp_ns;
  t.symbol_id = src.symbol_id;
  t.quantity = src.quantity;
  t.price = src.price;
  t.side = src.side;
}

// Equality that tells NaN from NaN-with-another-payload and 0.0 from -0.0.
template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  else
    return a == b;
}

// ---------------------------------------------------------------------------
// The cases. f(std::string_view name, const T& value) is called once per case,
// in this order. Names are unique, [a-z0-9_].
// ---------------------------------------------------------------------------

template <class F>
void for_each_case(F&& f) {
  using namespace std::string_literals;
  using detail::lim;
  using std::int8_t, std::int16_t, std::int32_t, std::int64_t;
  using std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t;

  // ---- integers
  f("u8_zero", uint8_t{0});
  f("u8_max", lim<uint8_t>::max());
  f("u16_value", uint16_t{0x0102});
  f("u16_max", lim<uint16_t>::max());
  f("u32_value", uint32_t{0x01020304});
  f("u32_max", lim<uint32_t>::max());
  f("u64_value", uint64_t{0x0102030405060708});
  f("u64_max", lim<uint64_t>::max());
  f("i8_min", lim<int8_t>::min());
  f("i8_max", lim<int8_t>::max());
  f("i8_minus_one", int8_t{-1});
  f("i16_min", lim<int16_t>::min());
  f("i16_max", lim<int16_t>::max());
  f("i32_min", lim<int32_t>::min());
  f("i32_max", lim<int32_t>::max());
  f("i32_minus_two", int32_t{-2});
  f("i64_min", lim<int64_t>::min());
  f("i64_max", lim<int64_t>::max());
  f("i64_minus_one", int64_t{-1});

  // ---- floats
  f("f32_one", 1.0f);
  f("f32_negative_zero", -0.0f);
  f("f32_pi", 3.14159274f);
  f("f32_max", lim<float>::max());
  f("f32_lowest", lim<float>::lowest());
  f("f32_min_normal", lim<float>::min());
  f("f32_denorm_min", lim<float>::denorm_min());
  f("f32_inf", lim<float>::infinity());
  f("f32_negative_inf", -lim<float>::infinity());
  f("f32_nan", lim<float>::quiet_NaN());
  f("f64_one", 1.0);
  f("f64_negative_zero", -0.0);
  f("f64_tenth", 0.1);
  f("f64_max", lim<double>::max());
  f("f64_lowest", lim<double>::lowest());
  f("f64_min_normal", lim<double>::min());
  f("f64_denorm_min", lim<double>::denorm_min());
  f("f64_inf", lim<double>::infinity());
  f("f64_negative_inf", -lim<double>::infinity());
  f("f64_nan", lim<double>::quiet_NaN());

  // ---- bool
  f("bool_true", true);
  f("bool_false", false);

  // ---- strings and bytes
  f("str_empty", std::string{});
  f("str_ascii", "abc"s);
  f("str_utf8", std::string{"h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac \xf0\x9f\x98\x80"});
  f("str_embedded_nul", std::string{"a\0b\0"s});
  f("str_escapes", std::string{"quote \" backslash \\ tab \t newline \n del \x7f"});
  f("str_long", std::string(300, 'x'));
  f("bytes_empty", std::vector<uint8_t>{});
  f("bytes_values", std::vector<uint8_t>{0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff});

  // ---- sequences
  f("vector_i32", std::vector<int32_t>{1, -2, 3, lim<int32_t>::min()});
  f("vector_empty", std::vector<uint64_t>{});
  f("vector_f32",
    std::vector<float>{1.5f, -0.0f, 2.1f, lim<float>::max(), lim<float>::denorm_min()});
  f("vector_f64", std::vector<double>{0.1, -2.5, 1e300});
  f("vector_bool", std::vector<bool>{true, false, true, true, false});
  f("vector_string", std::vector<std::string>{"ab", "", "\xc3\xa9t\xc3\xa9"});
  f("vector_vector_u16", std::vector<std::vector<uint16_t>>{{1, 2}, {}, {0xffff}});
  f("list_i16", std::list<int16_t>{-300, 0, 300});
  f("deque_u32", std::deque<uint32_t>{7, 8, 0xdeadbeef});
  f("deque_string", std::deque<std::string>{"front", "back"});

  // ---- fixed-size arrays
  f("array_i32", std::array<int32_t, 3>{1, 2, 3});
  f("array_empty", std::array<int32_t, 0>{});
  f("array_bool", std::array<bool, 3>{true, false, true});
  f("array_string", std::array<std::string, 2>{"x", "yz"});
  f("array_optional_u8", std::array<std::optional<uint8_t>, 2>{uint8_t{5}, std::nullopt});
  f("array_f64", std::array<double, 2>{-1.25, 6.02214076e23});

  // ---- optional
  f("optional_i32_empty", std::optional<int32_t>{});
  f("optional_i32", std::optional<int32_t>{7});
  f("optional_string", std::optional<std::string>{"hi"});
  f("optional_vector_empty", std::optional<std::vector<uint8_t>>{std::vector<uint8_t>{}});

  // ---- variant (every index)
  using Var = std::variant<std::monostate, int32_t, double, std::string>;
  f("variant_0_monostate", Var{});
  f("variant_1_i32", Var{std::in_place_index<1>, 5});
  f("variant_2_f64", Var{std::in_place_index<2>, 1.0});
  f("variant_3_string", Var{std::in_place_index<3>, "ok"});
  using Twin = std::variant<uint8_t, uint8_t>;
  f("variant_twin_0", Twin{std::in_place_index<0>, uint8_t{9}});
  f("variant_twin_1", Twin{std::in_place_index<1>, uint8_t{9}});
  f("monostate", std::monostate{});

  // ---- tuple, pair
  f("pair_u8_u16", std::pair<uint8_t, uint16_t>{1, 0x0203});
  f("tuple_mixed", std::tuple<char, int32_t, double, std::string>{'a', 1, 2.0, "three"});
  f("tuple_empty", std::tuple<>{});
  f("tuple_nested",
    std::tuple<std::pair<int8_t, bool>, std::vector<std::string>, std::optional<float>>{
        {int8_t{-7}, true}, {"p", "q"}, 0.5f});

  // ---- maps and sets
  f("map_i32_string", std::map<int32_t, std::string>{{2, "two"}, {-1, "minus one"}, {10, ""}});
  f("map_empty", std::map<uint8_t, uint8_t>{});
  f("map_string_vector", std::map<std::string, std::vector<uint16_t>>{{"b", {1, 2}}, {"a", {}}});
  f("map_u16_point", std::map<uint16_t, Point>{{3, {1, -1}}, {1, {lim<int32_t>::max(), 0}}});
  f("set_i32", std::set<int32_t>{3, -1, 2, lim<int32_t>::min()});
  f("set_string", std::set<std::string>{"pear", "apple", "", "\xc3\xa9"});
  f("set_empty", std::set<uint64_t>{});

  // ---- enums
  f("enum_u8", workloads::Color::Blue);
  f("enum_i16_negative", Level::low);
  f("enum_i16", Level::high);
  f("enum_char", workloads::Model::C);
  f("vector_enum", std::vector<workloads::Color>{workloads::Color::Red, workloads::Color::Green});

  // ---- bitset
  f("bitset10", std::bitset<10>{0b1000000011});
  f("bitset10_all", std::bitset<10>{}.set());
  f("bitset10_none", std::bitset<10>{});
  f("bitset64", std::bitset<64>{0x8000000000000001ULL});
  f("bitset65", std::bitset<65>{}.set(0).set(63).set(64));

  // ---- durations
  f("duration_ms", std::chrono::milliseconds{1500});
  f("duration_s_negative", std::chrono::seconds{-1});
  f("duration_i32", std::chrono::duration<int32_t>{-2});
  f("duration_f64", std::chrono::duration<double>{2.5});

  // ---- trivially copyable structs
  {
    Point p;
    clear_bytes(p);
    p.x = -5;
    p.y = 70000;
    f("point", p);
  }
  {
    Padded p;
    set_padded(p, 0xab, 0x01020304, 0xbeef, -0.5, true);
    f("padded", p);
  }
  {
    Packed p;
    clear_bytes(p);
    p.id = 42;
    p.dx = -3;
    p.kind = 7;
    p.visible = true;
    p.weight = 0.25f;
    p.pair = {0x0102, 0xfffe};
    f("packed", p);
  }
  {
    Shape s;
    clear_bytes(s);
    s.color = workloads::Color::Green;
    s.origin.x = 1;
    s.origin.y = 2;
    s.corners[0].x = -10;
    s.corners[0].y = -20;
    s.corners[1].x = 10;
    s.corners[1].y = 20;
    s.layer = -1;
    s.level = Level::high;
    f("shape", s);
  }
  {
    std::vector<Padded> v(3);
    set_padded(v[0], 1, 10, 100, 1.5, false);
    set_padded(v[1], 2, 20, 200, -2.5, true);
    set_padded(v[2], 3, 30, 300, 0.0, false);
    f("vector_padded", v);
  }
  {
    std::vector<Packed> v(2);
    for (std::size_t i = 0; i < v.size(); ++i) {
      clear_bytes(v[i]);
      v[i].id = static_cast<uint32_t>(i + 1);
      v[i].dx = static_cast<int16_t>(-static_cast<int>(i));
      v[i].kind = static_cast<uint8_t>(i * 3);
      v[i].visible = i % 2 == 0;
      v[i].weight = static_cast<float>(i) + 0.5f;
      v[i].pair = {static_cast<uint16_t>(i), static_cast<uint16_t>(i + 100)};
    }
    f("vector_packed", v);
  }

  {
    std::array<Padded, 2> a;
    set_padded(a[0], 7, 70, 700, 7.25, true);
    set_padded(a[1], 8, 80, 800, -8.25, false);
    f("array_padded", a);
  }
  {
    std::optional<Padded> o;
    o.emplace();
    set_padded(*o, 9, 90, 900, 9.5, true);
    f("optional_padded", o);
  }
  {
    Holder h;
    clear_bytes(h);
    h.head = 0xaa;
    set_padded(h.items[0], 1, 2, 3, 4.0, true);
    set_padded(h.items[1], 5, 6, 7, 8.0, false);
    h.tail = 0xbbcc;
    f("holder", h);
  }
  f("vector_pair", std::vector<std::pair<uint8_t, uint32_t>>{{1, 0x01020304}, {0xff, 0}});

  // ---- nested, not trivially copyable
  {
    Inner in;
    in.label = "inner";
    in.values = {1, 2, 3};
    f("inner", in);
  }
  {
    Outer o;
    o.id = 0xfeedface;
    o.inner = {"first", {-1, 0, 1}};
    o.maybe = Inner{"maybe", {}};
    o.items = {{"a", {1}}, {"", {}}, {"c", {lim<int32_t>::max(), lim<int32_t>::min()}}};
    o.points = {{"origin", {0, 0}}, {"corner", {-4, 4}}};
    o.choice.emplace<1>(Point{7, -7});
    set_padded(o.raw, 0x11, 0x22334455, 0x6677, 8.5, true);
    o.tags = {5, -5, 0};
    o.triple = {uint8_t{200}, "triple", Level::low};
    o.mask = std::bitset<12>{0xa5f};
    o.timeout = std::chrono::milliseconds{-250};
    f("outer", o);
  }
  {
    Outer o{};
    set_padded(o.raw, 0, 0, 0, 0.0, false);
    o.choice.emplace<2>("text");
    f("outer_minimal", o);
  }

  // ---- the shared workloads
  f("person", workloads::make_person());
  {
    workloads::Car car = workloads::make_car_sequential();
    // Engine is trivially copyable with padding (native: bulk copy, padding
    // included; make_car_sequential leaves it indeterminate): rebuild it on
    // zeroed bytes.
    const workloads::Engine e = car.engine;
    clear_bytes(car.engine);
    car.engine.capacity = e.capacity;
    car.engine.num_cylinders = e.num_cylinders;
    car.engine.max_rpm = e.max_rpm;
    car.engine.manufacturer_code = e.manufacturer_code;
    car.engine.booster.boost_type = e.booster.boost_type;
    car.engine.booster.horse_power = e.booster.horse_power;
    // So is Acceleration (u16 + f32: 2 padding bytes), bulk-copied in the
    // native vector<Acceleration>.
    for (workloads::PerformanceFigure& pf : car.performance_figures) {
      for (workloads::Acceleration& a : pf.acceleration) {
        const workloads::Acceleration src = a;
        clear_bytes(a);
        a.mph = src.mph;
        a.seconds = src.seconds;
      }
    }
    f("car", car);
  }
  f("monsters", workloads::make_monsters(3, 42));
  {
    workloads::Tick t;
    set_tick(t, 7);
    f("tick", t);
  }
  {
    std::vector<workloads::Tick> ticks(3);
    for (std::size_t i = 0; i < ticks.size(); ++i) set_tick(ticks[i], i);
    f("ticks", ticks);
  }
  f("small_message", workloads::make_small_message());
}

} // namespace vector_cases
