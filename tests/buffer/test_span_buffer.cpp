// SpanBuffer: serializing into memory a transport owns (a gRPC slice, a
// zmq::message_t), with a capacity fixed at run time.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/buffer/span_buffer.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "workloads/person.hpp"
#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using bs::errc;

namespace {

template <class T, bs::options Opts = bs::native>
std::vector<std::byte> reference_bytes(const T& value, bool framed) {
  bs::Buffer b;
  EXPECT_TRUE(framed ? bs::serialize_message<Opts>(b, value) : bs::serialize<Opts>(b, value));
  return {b.data(), b.data() + b.size()};
}

TEST(SpanBuffer, ExactSizeStorageHoldsTheSameBytesAsABuffer) {
  const workloads::Person p = workloads::make_person();
  std::vector<std::byte> storage(bs::serialized_size(p));
  bs::SpanBuffer out(storage.data(), storage.size());
  ASSERT_TRUE(bs::serialize(out, p));
  EXPECT_TRUE(out.full());
  EXPECT_EQ(out.data(), storage.data());
  EXPECT_EQ(storage, reference_bytes(p, false));
  workloads::Person back;
  bs::BufferView in(storage.data(), storage.size());
  ASSERT_TRUE(bs::deserialize(in, back));
  EXPECT_EQ(back, p);
}

TEST(SpanBuffer, FramedPortableMessageOfOneBlockTypeAndOfAVariableOne) {
  const workloads::Tick t = workloads::make_tick(3);
  std::array<std::byte, bs::max_message_size_v<workloads::Tick, bs::portable>> a{};
  bs::SpanBuffer out_a{std::span<std::byte>(a)};
  ASSERT_TRUE(bs::serialize_message<bs::portable>(out_a, t));
  EXPECT_TRUE(out_a.full());
  const auto ref_a = reference_bytes<workloads::Tick, bs::portable>(t, true);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), ref_a.begin(), ref_a.end()));

  const workloads::Person p = workloads::make_person();
  std::vector<std::byte> b(bs::message_header_size_v<workloads::Person> +
                           bs::serialized_size<bs::portable>(p));
  bs::SpanBuffer out_b(b.data(), b.size());
  ASSERT_TRUE(bs::serialize_message<bs::portable>(out_b, p));
  EXPECT_TRUE(out_b.full());
  EXPECT_EQ(b, (reference_bytes<workloads::Person, bs::portable>(p, true)));
}

TEST(SpanBuffer, TooSmallIsBufferFullAndLeavesEverythingAsItWas) {
  const workloads::Person p = workloads::make_person();
  const std::size_t need = bs::serialized_size(p);
  for (std::size_t cap = 0; cap < need; ++cap) {
    std::vector<std::byte> storage(cap + 4, std::byte{0xAB});
    bs::SpanBuffer out(storage.data(), cap);
    ASSERT_FALSE(bs::serialize(out, p)) << "capacity " << cap;
    EXPECT_EQ(out.last_error().code, errc::buffer_full) << "capacity " << cap;
    EXPECT_EQ(out.size(), 0u);
    // Nothing past the capacity was touched.
    for (std::size_t i = cap; i < storage.size(); ++i) ASSERT_EQ(storage[i], std::byte{0xAB});
  }
}

TEST(SpanBuffer, FailureAfterEarlierValueKeepsTheEarlierBytes) {
  std::array<std::byte, 12> storage{};
  bs::SpanBuffer out{std::span<std::byte>(storage)};
  ASSERT_TRUE(bs::serialize(out, std::uint64_t{0x1122334455667788}));
  ASSERT_FALSE(bs::serialize(out, std::string("abc"))); // 8-byte length + 3 > 4 left
  EXPECT_EQ(out.size(), 8u);
  EXPECT_EQ(out.last_error(), (bs::error{errc::buffer_full, 8}));
  std::uint64_t v = 0;
  std::memcpy(&v, storage.data(), 8);
  EXPECT_EQ(v, 0x1122334455667788u);
}

TEST(SpanBuffer, WriteReserveClearAndEmptyStorage) {
  std::array<std::byte, 4> storage{};
  bs::SpanBuffer out{std::span<std::byte>(storage)};
  EXPECT_TRUE(out.reserve(4));
  EXPECT_FALSE(out.reserve(5));
  EXPECT_EQ(out.last_error().code, errc::buffer_full);
  const unsigned char three[3] = {1, 2, 3};
  EXPECT_TRUE(out.write(three, 3));
  EXPECT_FALSE(out.write(three, 2));
  EXPECT_EQ(out.size(), 3u);
  out.clear();
  EXPECT_EQ(out.size(), 0u);
  EXPECT_FALSE(out.last_error());
  EXPECT_EQ(out.capacity(), 4u);

  bs::SpanBuffer none;
  EXPECT_EQ(none.capacity(), 0u);
  EXPECT_TRUE(none.write(nullptr, 0));
  EXPECT_FALSE(bs::serialize(none, std::uint8_t{1}));
  EXPECT_EQ(bs::SpanBuffer(nullptr, 16).capacity(), 0u); // no storage, no capacity
}

static_assert(bs::ContiguousWritableBuffer<bs::SpanBuffer>);
static_assert(bs::ErrorRecordingBuffer<bs::SpanBuffer>);

} // namespace
