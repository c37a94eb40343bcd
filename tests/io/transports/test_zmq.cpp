// The ZeroMQ market-data feed (examples/transports/market_feed.hpp) over
// tcp://127.0.0.1 with ephemeral ports: the handshake that beats the slow
// joiner, a complete in-order feed of type-identified framed messages,
// zero-copy encode and decode, and hostile frames that must be counted and
// dropped with the right errc and offset while the feed goes on; the library
// helpers of bin_serializer/io/zmq.hpp (send_message, recv_message,
// zmq_received) over a PAIR socket.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "examples/transports/market_feed.hpp"

namespace {

using namespace std::chrono_literals;
using bin_serializer::message_header_size_v;

template <class T>
std::vector<unsigned char> framed(const T& value) {
  bin_serializer::Buffer buf;
  EXPECT_TRUE(bin_serializer::serialize_message<feed::wire>(buf, value));
  const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
  return {p, p + buf.size()};
}

zmq::message_t msg_of(const std::vector<unsigned char>& bytes) {
  return zmq::message_t(bytes.data(), bytes.size());
}

// Runs a feed of n data messages through fresh sockets; returns the tally.
feed::Tally run_feed(std::uint64_t n, bool& finished) {
  zmq::context_t ctx;
  feed::Publisher pub(ctx);
  feed::Subscriber sub(ctx, pub.data_endpoint(), pub.sync_endpoint());
  bool publisher_ok = false;
  std::thread publisher([&] {
    publisher_ok = pub.wait_for_subscriber(10s);
    if (publisher_ok) pub.run_feed(n);
  });
  finished = sub.handshake(10s) && sub.run(10s);
  publisher.join();
  finished = finished && publisher_ok;
  return sub.tally;
}

TEST(ZmqFeed, CompleteInOrderWithCheckedValues) {
  bool finished = false;
  const feed::Tally t = run_feed(4000, finished);
  ASSERT_TRUE(finished);
  EXPECT_GE(t.hellos, 1u);
  EXPECT_EQ(t.end_count, 4000u);
  EXPECT_EQ(t.ticks, 2000u);
  EXPECT_EQ(t.quotes, 1000u);
  EXPECT_EQ(t.notes, 1000u);
  EXPECT_EQ(t.out_of_order, 0u); // message 0 included: nothing lost to the slow joiner
  EXPECT_EQ(t.wrong_value, 0u);
  EXPECT_EQ(t.rejected, 0u) << t.last_rejection;
}

TEST(ZmqFeed, HandshakeDeliversTheVeryFirstMessageEveryTime) {
  // Without the handshake a message published right after connect() is
  // usually lost; with it, a one-message feed always arrives.
  for (int round = 0; round < 5; ++round) {
    bool finished = false;
    const feed::Tally t = run_feed(1, finished);
    ASSERT_TRUE(finished) << "round " << round;
    EXPECT_EQ(t.ticks, 1u) << "round " << round;
    EXPECT_EQ(t.end_count, 1u);
  }
}

TEST(ZmqFeed, SerializesIntoTheMessageItSends) {
  const feed::Quote q = feed::quote_at(7);
  const zmq::message_t msg = feed::to_zmq(q);
  const auto expected = framed(q);
  ASSERT_EQ(msg.size(), expected.size());
  EXPECT_EQ(std::memcmp(msg.data(), expected.data(), expected.size()), 0);
  // 32-byte header: flags bit 1 (type id), type id 2 at offset 24.
  EXPECT_EQ(message_header_size_v<feed::Quote>, 32u);
  const auto* p = static_cast<const unsigned char*>(msg.data());
  EXPECT_EQ(p[6] & 2, 2);
  EXPECT_EQ(p[24], 2);
  const zmq::message_t tick = feed::to_zmq(feed::tick_at(0));
  EXPECT_EQ(static_cast<const unsigned char*>(tick.data())[24], 1); // the trait's id
}

TEST(ZmqFeed, NoteTextIsAViewIntoTheReceivedMessage) {
  const zmq::message_t msg = feed::to_zmq(feed::note_at(3));
  bin_serializer::BufferView in(msg.data(), msg.size());
  feed::NoteView v;
  ASSERT_TRUE(bin_serializer::deserialize_message<feed::wire>(in, v));
  EXPECT_EQ(v.text, feed::note_at(3).text);
  const auto* begin = static_cast<const char*>(msg.data());
  EXPECT_GE(v.text.data(), begin);
  EXPECT_LE(v.text.data() + v.text.size(), begin + msg.size());
}

// ---- Hostile frames, one by one through the subscriber's dispatch. ----

void expect_rejected(const std::vector<unsigned char>& bytes, const std::string& why) {
  feed::Tally t;
  feed::dispatch(msg_of(bytes), t);
  EXPECT_EQ(t.rejected, 1u);
  EXPECT_EQ(t.data(), 0u);
  EXPECT_EQ(t.last_rejection, why);
}

TEST(ZmqHostile, JunkIsBadHeader) {
  expect_rejected(std::vector<unsigned char>(40, 0x5A), "bad_header at offset 0");
}

// An empty frame holds no message: a clean end (end_of_stream), not a torn one.
TEST(ZmqHostile, EmptyFrameIsEndOfStream) { expect_rejected({}, "end_of_stream at offset 0"); }

TEST(ZmqHostile, CutTickIsTruncatedAtTheLengthField) {
  auto bytes = framed(feed::tick_at(1));
  bytes.pop_back();
  expect_rejected(bytes, "truncated at offset 16");
}

// Claims the Tick id with another layout.
struct FakeTick {
  static constexpr std::uint32_t bin_serializer_message_id = 1;
  std::uint64_t a;
  std::uint32_t b;
};
// An id this subscriber does not know.
struct Other {
  static constexpr std::uint32_t bin_serializer_message_id = 99;
  std::uint32_t x;
};

TEST(ZmqHostile, SameIdOtherShapeIsSchemaMismatch) {
  expect_rejected(framed(FakeTick{1, 2}), "schema_mismatch at offset 8");
}

TEST(ZmqHostile, NativeFormatIsSchemaMismatchAtTheFormatByte) {
  bin_serializer::Buffer buf;
  ASSERT_TRUE(bin_serializer::serialize_message(buf, feed::quote_at(1)));
  const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
  expect_rejected({p, p + buf.size()}, "schema_mismatch at offset 5");
}

TEST(ZmqHostile, TrailingBytesAreRejected) {
  auto bytes = framed(feed::quote_at(1));
  const std::size_t end = bytes.size();
  bytes.push_back(0);
  expect_rejected(bytes, "invalid_value at offset " + std::to_string(end));
}

TEST(ZmqHostile, HugeNoteLengthIsRefusedWithoutAllocating) {
  auto bytes = framed(feed::note_at(1));
  const std::size_t len_at = message_header_size_v<feed::Note> + 8; // after seq
  for (std::size_t i = 0; i < 8; ++i) bytes[len_at + i] = 0xFF;
  expect_rejected(bytes, "truncated at offset " + std::to_string(len_at));
}

TEST(ZmqHostile, UnknownTypeIsSkippedNotRejected) {
  feed::Tally t;
  feed::dispatch(msg_of(framed(Other{5})), t);
  EXPECT_EQ(t.rejected, 0u);
  EXPECT_EQ(t.data(), 0u);
}

TEST(ZmqHostile, FeedGoesOnAfterHostileFramesOverTheWire) {
  zmq::context_t ctx;
  feed::Publisher pub(ctx);
  feed::Subscriber sub(ctx, pub.data_endpoint(), pub.sync_endpoint());
  bool publisher_ok = false;
  std::thread publisher([&] {
    publisher_ok = pub.wait_for_subscriber(10s);
    if (!publisher_ok) return;
    zmq::socket_t& s = pub.socket();
    const std::vector<unsigned char> junk(17, 0xEE);
    s.send(zmq::str_buffer("tick"), zmq::send_flags::sndmore);
    s.send(zmq::buffer(junk), zmq::send_flags::none);
    s.send(zmq::str_buffer("tick"), zmq::send_flags::none); // one frame only
    feed::publish(s, "tick", feed::tick_at(0));
    feed::publish(s, "ctl", feed::End{.messages = 1});
  });
  ASSERT_TRUE(sub.handshake(10s));
  ASSERT_TRUE(sub.run(10s));
  publisher.join();
  ASSERT_TRUE(publisher_ok);
  EXPECT_EQ(sub.tally.rejected, 2u);
  EXPECT_EQ(sub.tally.ticks, 1u);
  EXPECT_EQ(sub.tally.wrong_value, 0u);
  EXPECT_EQ(sub.tally.end_count, 1u);
}

// ---- bin_serializer/io/zmq.hpp on its own, over inproc PAIR sockets. ----

struct Pair {
  zmq::context_t ctx;
  zmq::socket_t a{ctx, zmq::socket_type::pair}, b{ctx, zmq::socket_type::pair};
  Pair() {
    a.set(zmq::sockopt::linger, 0);
    b.set(zmq::sockopt::linger, 0);
    b.set(zmq::sockopt::rcvtimeo, 10000);
    a.bind("inproc://io-zmq");
    b.connect("inproc://io-zmq");
  }
};

// A message of exactly 33 bytes (24-byte header, 8-byte length, one char):
// small enough that ZeroMQ keeps it inside the zmq::message_t itself.
struct TinyView {
  std::string_view s;
};
static_assert(bin_serializer::borrows_input_v<TinyView, feed::wire>);
static_assert(!bin_serializer::borrows_input_v<feed::Note, feed::wire>);

TEST(ZmqHelpers, OwningTypeRoundTripAndDecodeErrors) {
  Pair p;
  ASSERT_TRUE(bin_serializer::send_message<feed::wire>(p.a, feed::note_at(5)));
  feed::Note n;
  auto r = bin_serializer::recv_message<feed::wire>(p.b, n);
  ASSERT_TRUE(r) << bin_serializer::error_name(r.failure.code);
  EXPECT_EQ(n, feed::note_at(5));

  // A Quote is not a Note: received, not decoded (the type id, at offset 24, differs).
  ASSERT_TRUE(bin_serializer::send_message<feed::wire>(p.a, feed::quote_at(1)));
  r = bin_serializer::recv_message<feed::wire>(p.b, n);
  EXPECT_TRUE(r.received);
  EXPECT_FALSE(r);
  EXPECT_EQ(r.failure.code, bin_serializer::errc::schema_mismatch);
  EXPECT_EQ(r.failure.offset, 24u);

  // Trailing bytes after the framed message.
  auto bytes = framed(feed::note_at(2));
  const std::size_t end = bytes.size();
  bytes.push_back(0);
  ASSERT_TRUE(p.a.send(msg_of(bytes), zmq::send_flags::none));
  r = bin_serializer::recv_message<feed::wire>(p.b, n);
  EXPECT_EQ(r.failure, (bin_serializer::error{bin_serializer::errc::invalid_value, end}));

  // Nothing waiting: not received.
  r = bin_serializer::recv_message<feed::wire>(p.b, n, zmq::recv_flags::dontwait);
  EXPECT_FALSE(r.received);
}

TEST(ZmqHelpers, ReceivedViewLivesWithItsMessageEvenWhenMoved) {
  Pair p;
  const feed::Note note = feed::note_at(77);
  ASSERT_TRUE(bin_serializer::send_message<feed::wire>(p.a, note));
  ASSERT_TRUE(bin_serializer::send_message<feed::wire>(p.a, TinyView{"x"}));
  bin_serializer::zmq_received<feed::NoteView> big;
  bin_serializer::zmq_received<TinyView> tiny;
  ASSERT_TRUE(bin_serializer::recv_message<feed::wire>(p.b, big));
  ASSERT_TRUE(bin_serializer::recv_message<feed::wire>(p.b, tiny));
  ASSERT_EQ(tiny.message()->size(), 33u);

  // Moved away and the source destroyed: the views still point into the
  // message the object holds (for the 33-byte one too, whose bytes live
  // inside its zmq::message_t: that message is on the heap, not moved).
  auto moved_big = std::make_unique<bin_serializer::zmq_received<feed::NoteView>>(std::move(big));
  auto moved_tiny = std::make_unique<bin_serializer::zmq_received<TinyView>>(std::move(tiny));
  big = {};
  tiny = {};
  EXPECT_EQ((*moved_big)->text, note.text);
  EXPECT_EQ((*moved_big)->seq, 77u);
  EXPECT_EQ((*moved_tiny)->s, "x");
  for (const auto& [view, msg] : {std::pair{(*moved_big)->text, moved_big->message()},
                                  std::pair{(*moved_tiny)->s, moved_tiny->message()}}) {
    const auto* begin = static_cast<const char*>(msg->data());
    EXPECT_GE(view.data(), begin);
    EXPECT_LE(view.data() + view.size(), begin + msg->size());
  }
}

} // namespace
