// The include paths of release 0.1: include/compat/bin_serializer/<name>.hpp
// files (a second include directory of the target) that only forward to the
// header's current place (buffer/, core/, frame/, io/, reflect/, view/). Users
// of 0.1 include them, so they must keep compiling; everything else in the
// repository (tests, examples, docs, bench, fuzz, workloads) includes the real
// paths. This is the one test that includes every forwarder:
// EveryForwarderIsIncludedHere fails when a new one is not listed.
// grpc.hpp needs gRPC++: it is included when this file is also compiled into
// test_grpc (tests/io/transports/CMakeLists.txt defines BIN_SERIALIZER_COMPAT_GRPC).
#include <bin_serializer/array_view.hpp>
#include <bin_serializer/buffer.hpp>
#include <bin_serializer/buffer_concept.hpp>
#include <bin_serializer/buffer_pool.hpp>
#include <bin_serializer/buffer_view.hpp>
#include <bin_serializer/bytes.hpp>
#include <bin_serializer/deserializer.hpp>
#include <bin_serializer/enum_range.hpp>
#include <bin_serializer/evolution.hpp>
#include <bin_serializer/fixed_buffer.hpp>
#include <bin_serializer/message.hpp>
#include <bin_serializer/reflect.hpp>
#include <bin_serializer/schema_hash.hpp>
#include <bin_serializer/sequence_view.hpp>
#include <bin_serializer/serializable.hpp>
#include <bin_serializer/serializer.hpp>
#include <bin_serializer/size.hpp>
#include <bin_serializer/span_buffer.hpp>
#ifdef BIN_SERIALIZER_COMPAT_GRPC
#include <bin_serializer/grpc.hpp>
#endif
// (grpc.hpp is listed here for EveryForwarderIsIncludedHere: <bin_serializer/grpc.hpp>)

#include <bin_serializer/std/vector.hpp> // array_view's wire bytes: a vector's

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace bs = bin_serializer;

struct Point {
  std::int32_t x;
  std::int32_t y;
  bool operator==(const Point&) const = default;
};

// The names each forwarder promises, through the forwarders alone.
TEST(CompatHeaders, ForwardersDeclareTheirNames) {
  static_assert(bs::WritableBuffer<bs::Buffer> && bs::ReadableBuffer<bs::BufferView>);
  static_assert(bs::max_serialized_size_v<Point> == 8);
  static_assert(bs::schema_hash_v<Point> != 0);
  static_assert(bs::message_header_size_v<Point> == 24);

  bs::Buffer buf;
  ASSERT_TRUE(bs::serialize(buf, Point{1, 2}));
  ASSERT_TRUE(bs::serialize(buf, std::string("hi")));
  EXPECT_EQ(bs::serialized_size(Point{1, 2}), 8u);
  bs::BufferView view(buf.data(), buf.size());
  Point p{};
  std::string s;
  ASSERT_TRUE(bs::deserialize(view, p));
  ASSERT_TRUE(bs::deserialize(view, s));
  EXPECT_EQ(p, (Point{1, 2}));
  EXPECT_EQ(s, "hi");

  bs::FixedBuffer<64> fixed;
  ASSERT_TRUE(bs::serialize_message(fixed, Point{3, 4}));
  Point q{};
  ASSERT_TRUE(bs::deserialize_message(fixed, q));
  EXPECT_EQ(q, (Point{3, 4}));

  std::array<std::byte, 16> memory{};
  bs::SpanBuffer span(memory);
  ASSERT_TRUE(bs::serialize(span, Point{5, 6}));
  EXPECT_EQ(span.size(), 8u);

  const auto bytes = bs::to_bytes(std::vector<Point>{{7, 8}});
  ASSERT_TRUE(bytes.has_value());
  const auto points = bs::from_bytes<std::vector<Point>>(*bytes);
  ASSERT_TRUE(points.has_value());
  EXPECT_EQ(points->size(), 1u);
  bs::BufferView in(bytes->data(), bytes->size());
  bs::array_view<Point> pv;
  ASSERT_TRUE(bs::deserialize(in, pv));
  ASSERT_EQ(pv.size(), 1u);
  EXPECT_EQ(pv[0], (Point{7, 8}));

  bs::BufferPool pool;
  auto lease = pool.acquire();
  ASSERT_TRUE(bs::serialize(lease, Point{9, 10}));
}

// Every forwarder under include/compat/bin_serializer/ (a header that starts
// with "// Moved to") is included by this file.
TEST(CompatHeaders, EveryForwarderIsIncludedHere) {
  const std::filesystem::path include_dir =
      std::filesystem::path(BIN_SERIALIZER_SPEC_DIR).parent_path() / "include" / "compat" /
      "bin_serializer";
  std::ifstream self_file(__FILE__);
  ASSERT_TRUE(self_file) << __FILE__;
  std::stringstream self;
  self << self_file.rdbuf();
  int forwarders = 0;
  for (const auto& entry : std::filesystem::directory_iterator(include_dir)) {
    if (entry.path().extension() != ".hpp") continue;
    std::ifstream header(entry.path());
    std::string first;
    std::getline(header, first);
    if (!first.starts_with("// Moved to")) continue;
    ++forwarders;
    const std::string include = "<bin_serializer/" + entry.path().filename().string() + ">";
    EXPECT_NE(self.str().find(include), std::string::npos) << include << " is not included here";
  }
  EXPECT_EQ(forwarders, 19);
}

} // namespace
