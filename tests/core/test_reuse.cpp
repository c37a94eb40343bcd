// Decoding into a reused object: vectors decode into the elements they
// already hold, so a steady-state receive loop allocates nothing, and a
// shorter message trims the surplus.
#define BIN_SERIALIZER_TEST_COUNT_ALLOCATIONS
#include "test_util.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workloads/workloads.hpp"

namespace bs = bin_serializer;

namespace {

template <class T>
void expect_allocation_free_redecode(const T& original) {
  bs::Buffer wire;
  ASSERT_TRUE(bs::serialize(wire, original));
  T target{};
  ASSERT_TRUE(bs::deserialize(wire, target)); // first decode sizes everything
  ASSERT_EQ(target, original);
  ASSERT_TRUE(wire.seek(0));
  test_util::AllocationProbe probe;
  ASSERT_TRUE(bs::deserialize(wire, target));
  EXPECT_EQ(probe.count(), 0u);
  EXPECT_EQ(target, original);
}

TEST(Reuse, MonsterVectorRedecodesWithoutAllocating) {
  expect_allocation_free_redecode(workloads::make_monsters());
}

TEST(Reuse, CarRedecodesWithoutAllocating) {
  expect_allocation_free_redecode(workloads::make_car_sequential());
}

TEST(Reuse, PersonRedecodesWithoutAllocating) {
  expect_allocation_free_redecode(workloads::make_person());
}

TEST(Reuse, ShorterMessageTrimsTheVector) {
  const std::vector<std::string> shorter{"x", "yz"};
  bs::Buffer wire;
  ASSERT_TRUE(bs::serialize(wire, shorter));
  std::vector<std::string> target{"a", "b", "c", "d"};
  ASSERT_TRUE(bs::deserialize(wire, target));
  EXPECT_EQ(target, shorter);
}

TEST(Reuse, LongerMessageAppends) {
  const std::vector<std::string> longer{"1", "22", "333", "4444"};
  bs::Buffer wire;
  ASSERT_TRUE(bs::serialize(wire, longer));
  std::vector<std::string> target{"old"};
  ASSERT_TRUE(bs::deserialize(wire, target));
  EXPECT_EQ(target, longer);
}

TEST(Reuse, FailureInsideAReusedElementLeavesNoStaleTail) {
  const std::vector<std::string> message{"first", "second", "third"};
  bs::Buffer wire;
  ASSERT_TRUE(bs::serialize(wire, message));
  // Cut the input inside the second string, late enough that the count
  // (3 strings of at least 8 bytes) still passes its pre-check.
  const auto bytes = wire.bytes();
  bs::BufferView cut(bytes.data(), 8 + (8 + 5) + 8 + 3);
  std::vector<std::string> target{"a", "b", "c", "d", "e"};
  ASSERT_FALSE(bs::deserialize(cut, target));
  EXPECT_EQ(cut.last_error().code, bs::errc::truncated);
  EXPECT_EQ(cut.read_position(), 0u);
  // Decoded prefix plus the element that failed; nothing from the old tail.
  ASSERT_EQ(target.size(), 2u);
  EXPECT_EQ(target[0], "first");
  // Still a usable object: a full decode succeeds.
  ASSERT_TRUE(bs::deserialize(wire, target));
  EXPECT_EQ(target, message);
}

} // namespace
