// The tokens of the schema fingerprint (docs/wire-format.md section 9): their
// values are part of the specification. A type family's codec states its
// shape with them, next to its layout, so the fingerprint needs no list of
// families of its own:
//
//   template <class H> static constexpr void schema(H& h) {
//     h.token(detail::schema::t_optional);   // the family's token (and param)
//     h.template type<T>();                  // then the types it holds
//   }
//
// H is frame/schema_hash.hpp's shape_hasher. A user codec states instead a
// schema_id or a schema_equivalent type.
#pragma once

namespace bin_serializer::detail::schema {

// Token tags: the values are part of the specification.
enum tag : unsigned char {
  t_format = 0x01,
  t_bool = 0x02,
  t_char = 0x03,
  t_uint = 0x04,
  t_sint = 0x05,
  t_float = 0x06,
  t_enum = 0x07,
  t_enum_range = 0x08,
  t_array = 0x10,
  t_string = 0x11,
  t_sequence = 0x12,
  t_set = 0x13,
  t_map = 0x14,
  t_optional = 0x15,
  t_variant = 0x16,
  t_monostate = 0x17,
  t_tuple = 0x18,
  t_bitset = 0x19,
  t_duration = 0x1A,
  t_time_point = 0x1B,
  t_struct = 0x20,
  t_end = 0x21,
  t_bulk = 0x22,
  t_evolvable = 0x23,
  t_backref = 0x2F,
  t_custom = 0x30,
};

} // namespace bin_serializer::detail::schema
