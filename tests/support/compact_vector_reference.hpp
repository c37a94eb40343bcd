// The reference the compact vector-of-varints tests hold the group, block and
// run paths to (tests/format/test_compact_vector_groups.cpp,
// test_compact_varint_runs.cpp): a vector of one-field structs, which has the
// same bytes and is still decoded element by element (std/vector.hpp;
// varint_reference.hpp, shared with the fuzz target).
#pragma once

#include "std_codec_test_support.hpp"
#include "varint_reference.hpp"

#include <cstddef>
#include <vector>

namespace compact_vector_reference {

// Decodes `bytes` into a vector<T> and the reference vector<One<T>>, both
// holding `old` first, through a BufferView and a stream: the same result,
// error, offset, read position and elements kept.
template <class T>
void expect_same_reading(const std::vector<std::byte>& bytes, const std::vector<T>& old) {
  using namespace bin_serializer;
  using std_codec_test::to_hex;
  {
    BufferView vv(bytes), vr(bytes);
    std::vector<T> v = old;
    std::vector<One<T>> ref = as_ones(old);
    const bool ok = deserialize<compact>(vv, v);
    ASSERT_EQ(ok, deserialize<compact>(vr, ref)) << to_hex(bytes);
    EXPECT_EQ(vv.last_error(), vr.last_error()) << to_hex(bytes);
    EXPECT_EQ(vv.read_position(), vr.read_position());
    ASSERT_EQ(v.size(), ref.size()) << to_hex(bytes);
    EXPECT_TRUE(as_ones(v) == ref) << to_hex(bytes);
  }
  {
    std_codec_test::StreamSource sv(bytes), sr(bytes);
    std::vector<T> v = old;
    std::vector<One<T>> ref = as_ones(old);
    const bool ok = deserialize<compact>(sv, v);
    ASSERT_EQ(ok, deserialize<compact>(sr, ref));
    EXPECT_EQ(sv.last_error(), sr.last_error());
    EXPECT_TRUE(as_ones(v) == ref);
  }
}

} // namespace compact_vector_reference
