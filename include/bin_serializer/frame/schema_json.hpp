// schema_json<T, Opts>(): a machine-readable description (JSON) of what
// serialize<Opts> writes for a T, generated from the C++ type.
//
//   #include <bin_serializer/frame/schema_json.hpp>
//   std::string text = bin_serializer::schema_json<Person, bin_serializer::portable>();
//
// The keys are specified in docs/schema.md and by the JSON Schema
// spec/schema-description.schema.json. In short:
//
//   {"bin_serializer_schema": 1, "format": "portable",
//    "fingerprint": "0x...", "message_id": 0, "type": {"kind": "struct", ...}}
//
// The description is built by a second consumer of the fingerprint's token
// stream (core/schema_tokens.hpp): every category's shape<Opts, T>::schema(h)
// and every codec's schema(h) speak to it exactly as they speak to the hasher
// of frame/schema_hash.hpp, so a description and a fingerprint are read from
// one statement of the shape. Only names (reflect/field_names.hpp) and the
// fields of an evolvable struct's later versions (which the fingerprint, by
// design, leaves out) come from elsewhere. "fingerprint" is schema_hash_v<T,
// Opts>.
//
// Describing is not a hot path: the text is built at run time in a
// std::string (no exceptions are thrown; an allocation failure terminates as
// any std::string's does). Nothing here is instantiated by encode or decode,
// and no other header includes this one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/bytes.hpp"
#include "../core/schema_tokens.hpp"
#include "../core/shape.hpp"
#include "../options.hpp"
#include "../reflect/enum_range.hpp"
#include "../reflect/evolution.hpp"
#include "../reflect/field_names.hpp"
#include "../reflect/members.hpp"
#include "message.hpp"
#include "schema_hash.hpp"

namespace bin_serializer {

// The value of the "bin_serializer_schema" key: the version of the
// description's own format (docs/schema.md). Raised when a key changes
// meaning; new optional keys do not raise it.
inline constexpr unsigned schema_description_version = 1;

namespace detail::describe {

// ---- a small JSON value, printed in one deterministic layout ---------------

struct json {
  enum class kind : unsigned char { text, object, array };
  kind k = kind::text;
  std::string text;              // a number, a literal or a quoted string, as JSON
  std::vector<std::string> keys; // an object's keys, in order
  std::vector<json> values;      // an object's values, or an array's items

  static json object() {
    json j;
    j.k = kind::object;
    return j;
  }
  static json array() {
    json j;
    j.k = kind::array;
    return j;
  }
  json& add(std::string_view key, json value) {
    keys.emplace_back(key);
    values.push_back(std::move(value));
    return *this;
  }
  json& push(json value) {
    values.push_back(std::move(value));
    return *this;
  }
  const json* find(std::string_view key) const {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return &values[i];
    return nullptr;
  }
};

inline json string(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  json j;
  j.text.reserve(s.size() + 2);
  j.text += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      j.text += '\\';
      j.text += c;
    } else if (u < 0x20) {
      j.text += "\\u00";
      j.text += hex[u >> 4];
      j.text += hex[u & 15];
    } else {
      j.text += c;
    }
  }
  j.text += '"';
  return j;
}

inline json number(std::uint64_t v, bool negative = false) {
  char digits[21];
  std::size_t at = sizeof digits;
  do {
    digits[--at] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) digits[--at] = '-';
  json j;
  j.text.assign(digits + at, sizeof digits - at);
  return j;
}

inline json signed_number(std::int64_t v) {
  if (v >= 0) return number(static_cast<std::uint64_t>(v));
  return number(0 - static_cast<std::uint64_t>(v), true); // well defined for INT64_MIN too
}

inline json literal_true() {
  json j;
  j.text = "true";
  return j;
}

inline json hex64(std::uint64_t v) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) s += hex[(v >> shift) & 15];
  return string(s);
}

// One line when it fits in `width` columns, else one member per line,
// indented by two spaces: the same value always prints the same bytes.
inline constexpr std::size_t line_width = 100;

inline void print_compact(const json& j, std::string& out) {
  if (j.k == json::kind::text) {
    out += j.text;
    return;
  }
  const bool obj = j.k == json::kind::object;
  out += obj ? '{' : '[';
  for (std::size_t i = 0; i < j.values.size(); ++i) {
    if (i != 0) out += ", ";
    if (obj) {
      out += string(j.keys[i]).text;
      out += ": ";
    }
    print_compact(j.values[i], out);
  }
  out += obj ? '}' : ']';
}

inline void print(const json& j, std::string& out, std::size_t indent, std::size_t used) {
  std::string flat;
  print_compact(j, flat);
  if (j.k == json::kind::text || j.values.empty() || used + flat.size() <= line_width) {
    out += flat;
    return;
  }
  const bool obj = j.k == json::kind::object;
  out += obj ? "{\n" : "[\n";
  for (std::size_t i = 0; i < j.values.size(); ++i) {
    out.append(indent + 2, ' ');
    std::size_t at = indent + 2;
    if (obj) {
      const std::string key = string(j.keys[i]).text + ": ";
      out += key;
      at += key.size();
    }
    print(j.values[i], out, indent + 2, at + 1); // + 1: the comma after it
    out += i + 1 == j.values.size() ? "\n" : ",\n";
  }
  out.append(indent, ' ');
  out += obj ? '}' : ']';
}

// ---- what one type's schema(h) said ------------------------------------------

using schema::tag;

struct item {
  enum class what : unsigned char { token, param, node };
  what w = what::token;
  tag t{};
  bool has_param = false;
  std::uint64_t value = 0; // the token's parameter, or a lone param()
  json node;               // a nested type, a struct or an evolvable struct
};

struct level {
  std::vector<item> items;
};

template <options Opts, class T, class Stack>
json describe_type();

template <options Opts, class T, class Stack>
json describe_fields(std::size_t since_from);

// The describer: what shape<Opts, T>::schema(h) and a codec's schema(h) speak
// to (the same calls as frame/schema_hash.hpp's shape_hasher).
template <options Opts, class Stack>
struct describer {
  level& out;
  void token(tag t) { out.items.push_back(item{item::what::token, t, false, 0, {}}); }
  void token(tag t, std::uint64_t p) {
    out.items.push_back(item{item::what::token, t, true, p, {}});
  }
  void param(std::uint64_t v) { out.items.push_back(item{item::what::param, tag{}, true, v, {}}); }
  template <class... Ts>
  void type() {
    (out.items.push_back(item{item::what::node, tag{}, false, 0, describe_type<Opts, Ts, Stack>()}),
     ...);
  }
  template <class T>
  void fields() {
    out.items.push_back(
        item{item::what::node, tag{}, false, 0, describe_fields<Opts, T, Stack>(0)});
  }
  template <class T>
  void evolvable() {
    out.items.push_back(
        item{item::what::node, tag{}, false, 0, describe_fields<Opts, T, Stack>(1)});
  }
};

// A field's value as hex of its encoding ("" for a retired field, which has
// no value of its own, and for unknown_fields, which is not a field).
template <options Opts, class F>
std::string default_hex(const F& value) {
  if constexpr (is_retired_v<F> || std::is_same_v<F, unknown_fields>) {
    return {};
  } else {
    static constexpr char hex[] = "0123456789abcdef";
    const std::optional<std::vector<std::byte>> bytes = to_bytes<Opts>(value);
    std::string out;
    if (!bytes) return out;
    for (const std::byte b : *bytes) {
      out += hex[std::to_integer<unsigned>(b) >> 4];
      out += hex[std::to_integer<unsigned>(b) & 15];
    }
    return out;
  }
}

// A struct's fields, each with its name; `since_from` 1 for an evolvable
// struct: every field of every version, each with the version that added it.
template <options Opts, class T, class Stack>
json describe_fields(std::size_t since_from) {
  using inner = decltype(schema::push<T>(Stack{}));
  constexpr auto& names = field_names_v<T>;
  json node = json::object();
  json list = json::array();
  // The encoding of each field's value in T{}: what a reader of older data
  // gives the fields it lacks (fields after the first version).
  std::vector<std::string> defaults;
  if constexpr (evolvable_type<T>) {
    if (since_from != 0) {
      const T made{};
      auto each = [&](const auto&... f) {
        (defaults.push_back(default_hex<Opts>(f)), ...);
        return true;
      };
      (void)visit_members(made, each);
    }
  }
  [&]<class... Fs>(type_list<Fs...>) {
    std::size_t i = 0;
    auto one = [&]<class F>() {
      if constexpr (std::is_same_v<std::remove_cv_t<F>, unknown_fields>) {
        return; // not a field: the node says "keeps_unknown"
      } else {
        json field = json::object();
        field.add("name", string(names[i]));
        if (since_from != 0) {
          if constexpr (evolvable_type<T>) {
            std::size_t version = 1;
            while (evolution_counts<T>[version - 1] <= i) ++version;
            field.add("since", number(version));
            if (version > 1 && i < defaults.size() && !defaults[i].empty())
              field.add("default", string(defaults[i]));
          }
        }
        if constexpr (is_retired_v<std::remove_cv_t<F>>) {
          field.add("retired", literal_true());
          using U = typename std::remove_cv_t<F>::value_type;
          if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
            const U fixed = std::remove_cv_t<F>::fixed_value();
            if (fixed != U{}) {
              if constexpr (std::is_enum_v<U>)
                field.add("retired_value", signed_number(static_cast<std::int64_t>(
                                               static_cast<std::underlying_type_t<U>>(fixed))));
              else if constexpr (std::is_signed_v<U>)
                field.add("retired_value", signed_number(static_cast<std::int64_t>(fixed)));
              else
                field.add("retired_value", number(static_cast<std::uint64_t>(fixed)));
            }
          }
        }
        field.add("type", describe_type<Opts, F, inner>());
        list.push(std::move(field));
        ++i;
      }
    };
    (one.template operator()<Fs>(), ...);
  }(member_types_t<T>{});
  node.add("kind", string(since_from != 0 ? "evolvable" : "struct"));
  node.add("name", string(type_name_v<T>));
  if (since_from != 0) {
    if constexpr (evolvable_type<T>) {
      json counts = json::array();
      for (const std::size_t c : evolution_counts<T>) counts.push(number(c));
      node.add("versions", std::move(counts));
      if constexpr (keeps_unknown_fields<T>) node.add("keeps_unknown", literal_true());
    }
  }
  node.add("fields", std::move(list));
  return node;
}

// Where each visible field of a trivially copyable T starts in its object
// bytes (a struct copied as a block: native format). Run time, describing
// only: the storage's bytes implicitly create a T (an implicit-lifetime
// type); binding its members to references reads no value.
template <class T>
std::vector<std::size_t> field_offsets() {
  alignas(T) unsigned char raw[sizeof(T)]{};
  const T& obj = *std::launder(reinterpret_cast<const T*>(raw));
  std::vector<std::size_t> out;
  auto visit = [&](const auto&... f) {
    (out.push_back(
         static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(std::addressof(f)) - raw)),
     ...);
    return true;
  };
  (void)visit_members(obj, visit);
  return out;
}

// Each field {"name", "type"} of a list becomes {"name", "offset", "type"}.
inline void add_offsets(json& fields, const std::vector<std::size_t>& offsets) {
  for (std::size_t i = 0; i < fields.values.size() && i < offsets.size(); ++i) {
    json& f = fields.values[i];
    f.keys.insert(f.keys.begin() + 1, "offset");
    f.values.insert(f.values.begin() + 1, number(offsets[i]));
  }
}

inline std::string_view scalar_kind(tag t) {
  switch (t) {
  case schema::t_bool: return "bool";
  case schema::t_char: return "char";
  case schema::t_uint: return "uint";
  case schema::t_sint: return "sint";
  case schema::t_float: return "float";
  default: return {};
  }
}

inline json unit_of(std::uint64_t num, std::uint64_t den) {
  struct named {
    std::uint64_t num, den;
    std::string_view name;
  };
  static constexpr named units[] = {{1, 1000000000, "ns"}, {1, 1000000, "us"}, {1, 1000, "ms"},
                                    {1, 1, "s"},           {60, 1, "min"},     {3600, 1, "h"},
                                    {86400, 1, "d"}};
  for (const named& u : units)
    if (u.num == num && u.den == den) return string(u.name);
  return json{json::kind::text, "null", {}, {}};
}

// What a level's items say, as a node. U is the type the level describes.
template <options Opts, class U>
json render(level& lv) {
  auto& it = lv.items;
  auto nodes_from = [&](std::size_t first) {
    json list = json::array();
    for (std::size_t i = first; i < it.size(); ++i)
      if (it[i].w == item::what::node) list.push(std::move(it[i].node));
    return list;
  };
  auto node_at = [&](std::size_t i) -> json {
    if (i < it.size() && it[i].w == item::what::node) return std::move(it[i].node);
    return json::object();
  };
  auto unknown = [](std::uint64_t token) {
    return json::object().add("kind", string("unknown")).add("token", number(token));
  };
  if (it.empty()) return unknown(0); // a codec whose schema(h) said nothing
  if (it[0].w == item::what::node && it.size() == 1) return std::move(it[0].node); // a struct
  if (it[0].w != item::what::token) return unknown(0);
  const tag t = it[0].t;
  const std::uint64_t p = it[0].value;
  json j = json::object();
  if (const std::string_view k = scalar_kind(t); !k.empty()) {
    j.add("kind", string(k));
    if (it[0].has_param) j.add("size", number(p));
    if constexpr (std::is_arithmetic_v<U>) {
      // How the format writes the leaf: its own bytes, or (compact) a varint.
      using S = shape<Opts, U>;
      const bool varies = S::min_size() != S::max_size();
      j.add("encoding", string(!varies ? "fixed" : std::is_signed_v<U> ? "zigzag" : "varint"));
    }
    return j;
  }
  switch (t) {
  case schema::t_enum:
  case schema::t_enum_range: {
    j.add("kind", string("enum"));
    j.add("name", string(type_name_v<U>));
    if (t == schema::t_enum_range && it.size() >= 3) {
      if constexpr (std::is_enum_v<U>) {
        if constexpr (std::is_signed_v<std::underlying_type_t<U>>) {
          j.add("min", signed_number(static_cast<std::int64_t>(it[1].value)));
          j.add("max", signed_number(static_cast<std::int64_t>(it[2].value)));
        } else {
          j.add("min", number(it[1].value));
          j.add("max", number(it[2].value));
        }
      }
      j.add("underlying", node_at(3));
    } else {
      j.add("underlying", node_at(1));
    }
    return j;
  }
  case schema::t_array:
    return j.add("kind", string("array")).add("count", number(p)).add("element", node_at(1));
  case schema::t_string: return j.add("kind", string("string")).add("char_size", number(p));
  case schema::t_sequence: return j.add("kind", string("sequence")).add("element", node_at(1));
  case schema::t_set: return j.add("kind", string("set")).add("key", node_at(1));
  case schema::t_map:
    return j.add("kind", string("map")).add("key", node_at(1)).add("value", node_at(2));
  case schema::t_optional: return j.add("kind", string("optional")).add("value", node_at(1));
  case schema::t_variant:
    return j.add("kind", string("variant")).add("alternatives", nodes_from(1));
  case schema::t_monostate: return j.add("kind", string("monostate"));
  case schema::t_tuple: return j.add("kind", string("tuple")).add("elements", nodes_from(1));
  case schema::t_bitset: return j.add("kind", string("bitset")).add("bits", number(p));
  case schema::t_duration: {
    const std::uint64_t num = it.size() > 1 ? it[1].value : 0;
    const std::uint64_t den = it.size() > 2 ? it[2].value : 0;
    j.add("kind", string("duration")).add("unit", unit_of(num, den));
    j.add("num", number(num)).add("den", number(den));
    return j.add("rep", node_at(3));
  }
  case schema::t_time_point: return j.add("kind", string("time_point")).add("duration", node_at(1));
  case schema::t_bulk: {
    // Copied as its object bytes (native format): the struct's fields when
    // the library sees them, else opaque bytes.
    if (it.size() > 1 && it[1].w == item::what::node) {
      json s = std::move(it[1].node);
      json out = json::object();
      for (std::size_t i = 0; i < s.keys.size(); ++i) {
        if (s.keys[i] == "fields") {
          out.add("bulk", number(p));
          if constexpr (std::is_class_v<U> && has_visible_fields<U>)
            add_offsets(s.values[i], field_offsets<U>());
        }
        out.add(s.keys[i], std::move(s.values[i]));
      }
      return out;
    }
    return j.add("kind", string("opaque"))
        .add("name", string(type_name_v<U>))
        .add("size", number(p));
  }
  case schema::t_custom:
    return j.add("kind", string("custom")).add("name", string(type_name_v<U>)).add("id", hex64(p));
  default: return unknown(static_cast<std::uint64_t>(t));
  }
}

// A recursive type refers back to an enclosing struct; anything else is what
// its description says (as frame/schema_hash.hpp's hash_type).
template <options Opts, class T, class Stack>
json describe_type() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_class_v<U> && schema::depth_in<U>(Stack{}) != 0) {
    return json::object()
        .add("kind", string("ref"))
        .add("name", string(type_name_v<U>))
        .add("depth", number(schema::depth_in<U>(Stack{})));
  } else {
    level lv;
    describer<Opts, Stack> d{lv};
    shape<Opts, U>::schema(d);
    return render<Opts, U>(lv);
  }
}

template <class T, options Opts>
std::string document() {
  json doc = json::object();
  doc.add("bin_serializer_schema", number(schema_description_version));
  doc.add("format", string(format_of<Opts>::name));
  doc.add("fingerprint", hex64(schema_hash_v<T, Opts>));
  if constexpr (evolvable_type<T>) {
    // An evolvable T: the fingerprint counting the fields of each published
    // version (the first is "fingerprint"), for tools that track versions.
    json list = json::array();
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (list.push(hex64(detail::schema_hash_upto<T, Opts, K + 1>)), ...);
    }(std::make_index_sequence<evolution_counts<T>.size()>{});
    doc.add("version_fingerprints", std::move(list));
  }
  doc.add("message_id", number(message_id_v<T>));
  doc.add("type", describe_type<Opts, T, type_list<>>());
  std::string out;
  print(doc, out, 0, 0);
  out += '\n';
  return out;
}

} // namespace detail::describe

// The description of T's encoding in format Opts.format (see the top of this
// file): one JSON document, ending in a newline, the same bytes on every call
// and with every compiler (up to type names, which are the compiler's).
template <class T, options Opts = native>
std::string schema_json() {
  return detail::describe::document<std::remove_cvref_t<T>, options{.format = Opts.format}>();
}

} // namespace bin_serializer
