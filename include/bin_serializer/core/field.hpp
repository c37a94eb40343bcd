// The two calls a codec makes for the values it holds, serialize_field and
// deserialize_field, declared here: a type family (std/) depends on this
// header, not on the traversal that defines them (core/encode.hpp,
// core/decode.hpp), which bin_serializer.hpp includes before the families.
#pragma once

namespace bin_serializer {

// Writes one field through the writer a codec received (core/encode.hpp).
template <class Out, class T>
bool serialize_field(Out& out, const T& value);

// Reads one field through the reader a codec received (core/decode.hpp).
template <class In, class T>
bool deserialize_field(In& in, T& value);

} // namespace bin_serializer
