// A market-data feed over ZeroMQ PUB/SUB with framed bin_serializer messages;
// shared by examples/transports/zmq_feed.cpp and tests/io/transports/test_zmq.cpp.
//
// Wire: each ZeroMQ message has two frames,
//   1. a topic ("tick", "quote", "note", "ctl"), which SUB sockets filter on;
//   2. one framed message (message.hpp) in the portable format, whose header
//      carries the message type id. The subscriber dispatches on the header,
//      not on the topic: a frame is decoded only as the type it says it is,
//      and a frame that is not a valid message of a known type is counted and
//      dropped (with errc and offset), never trusted.
//
// Copies: a message is serialized straight into the zmq::message_t that is
// sent, and decoded straight from the received zmq::message_t
// (bin_serializer/io/zmq.hpp). A Note's text is decoded as a std::string_view
// into the received frame (NoteView): dispatch() uses it only while the
// subscriber still holds that frame; a NoteView that must outlive the frame is
// received as a bin_serializer::zmq_received<NoteView>, which keeps the frame
// (recv_message into a plain NoteView does not compile).
//
// Slow joiner: a SUB socket only gets what is published after its
// subscription reached the publisher, which takes an unknown time after
// connect(). The feed starts with a handshake: the publisher publishes Hello
// (topic "ctl") every few milliseconds while polling a REP socket; the
// subscriber waits for the first Hello (so its subscriptions are live) and
// then sends "ready" over REQ. Only after that reply does the publisher send
// data, so the first tick is never lost. Every wait has a deadline.
#pragma once

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/zmq.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "workloads/tick.hpp"

// workloads::Tick gets its type id without being touched: the trait.
template <>
struct bin_serializer::message_id<workloads::Tick> : std::integral_constant<std::uint32_t, 1> {};

namespace feed {

inline constexpr bin_serializer::options wire = bin_serializer::portable;

struct Quote {
  static constexpr std::uint32_t bin_serializer_message_id = 2;
  std::uint64_t seq = 0;
  std::uint32_t symbol_id = 0;
  double bid = 0, ask = 0;
  bool operator==(const Quote&) const = default;
};

// Free text from the exchange; decoded as a view into the received frame.
struct Note {
  static constexpr std::uint32_t bin_serializer_message_id = 3;
  std::uint64_t seq = 0;
  std::string text;
  bool operator==(const Note&) const = default;
};
struct NoteView { // same wire shape and id as Note, text not copied
  static constexpr std::uint32_t bin_serializer_message_id = 3;
  std::uint64_t seq = 0;
  std::string_view text;
};

struct Hello {
  static constexpr std::uint32_t bin_serializer_message_id = 10;
  std::uint64_t session = 0;
};
struct End {
  static constexpr std::uint32_t bin_serializer_message_id = 11;
  std::uint64_t messages = 0; // data messages sent before End
};

// The data message with sequence number `seq`: two ticks, a quote, a note, repeating.
inline workloads::Tick tick_at(std::uint64_t seq) { return workloads::make_tick(seq); }
inline Quote quote_at(std::uint64_t seq) {
  return {seq, static_cast<std::uint32_t>(seq % 64), 100.0 + static_cast<double>(seq % 50) * 0.5,
          100.5 + static_cast<double>(seq % 50) * 0.5};
}
inline Note note_at(std::uint64_t seq) {
  return {seq, "session note " + std::to_string(seq) + ": all markets open"};
}

// Serializes `value` into a new zmq::message_t of exactly its framed size.
template <class T>
zmq::message_t to_zmq(const T& value) {
  return bin_serializer::to_zmq_message<wire>(value);
}

template <class T>
void publish(zmq::socket_t& pub, std::string_view topic, const T& value) {
  pub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
  bin_serializer::send_message<wire>(pub, value);
}

// Binds PUB and REP on ephemeral 127.0.0.1 ports; endpoints() for the subscriber.
class Publisher {
public:
  explicit Publisher(zmq::context_t& ctx)
      : pub_(ctx, zmq::socket_type::pub), sync_(ctx, zmq::socket_type::rep) {
    pub_.set(zmq::sockopt::linger, 0);
    pub_.set(zmq::sockopt::sndhwm, 0); // the test feed must not drop at the publisher
    sync_.set(zmq::sockopt::linger, 0);
    pub_.bind("tcp://127.0.0.1:*");
    sync_.bind("tcp://127.0.0.1:*");
  }
  std::string data_endpoint() const { return pub_.get(zmq::sockopt::last_endpoint); }
  std::string sync_endpoint() const { return sync_.get(zmq::sockopt::last_endpoint); }
  zmq::socket_t& socket() { return pub_; }

  // Publishes Hello until the subscriber says ready on the REP socket.
  bool wait_for_subscriber(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    zmq::pollitem_t item{sync_.handle(), 0, ZMQ_POLLIN, 0};
    while (std::chrono::steady_clock::now() < deadline) {
      publish(pub_, "ctl", Hello{.session = 1});
      if (zmq::poll(&item, 1, std::chrono::milliseconds(5)) > 0) {
        zmq::message_t ready;
        if (!sync_.recv(ready, zmq::recv_flags::none)) return false;
        sync_.send(zmq::str_buffer("go"), zmq::send_flags::none);
        return true;
      }
    }
    return false;
  }

  // Data messages 0..n-1 (ticks, quotes, notes), then End.
  void run_feed(std::uint64_t n) {
    for (std::uint64_t seq = 0; seq < n; ++seq) {
      switch (seq % 4) {
      case 0:
      case 1: publish(pub_, "tick", tick_at(seq)); break;
      case 2: publish(pub_, "quote", quote_at(seq)); break;
      default: publish(pub_, "note", note_at(seq)); break;
      }
    }
    publish(pub_, "ctl", End{.messages = n});
  }

private:
  zmq::socket_t pub_, sync_;
};

// What a subscriber saw.
struct Tally {
  std::uint64_t ticks = 0, quotes = 0, notes = 0, hellos = 0;
  std::uint64_t out_of_order = 0; // data messages whose seq was not the next one
  std::uint64_t wrong_value = 0;  // decoded, but not what seq says it should be
  std::uint64_t rejected = 0;     // not a valid message of a known type
  std::string last_rejection;     // "<errc> at offset <n>" of the last one
  std::optional<std::uint64_t> end_count;
  std::uint64_t next_seq = 0;
  std::uint64_t data() const { return ticks + quotes + notes; }
};

inline const char* errc_id(bin_serializer::errc c) {
  return bin_serializer::error_name(c).data(); // a string literal: null-terminated
}

inline void reject(Tally& t, bin_serializer::error e) {
  ++t.rejected;
  t.last_rejection = std::string(errc_id(e.code)) + " at offset " + std::to_string(e.offset);
}

// Decodes one body frame, which the caller holds for the whole call (a
// NoteView's text points into it).
inline void dispatch(const zmq::message_t& body, Tally& t) {
  bin_serializer::BufferView in(body.data(), body.size());
  bin_serializer::message_header h;
  if (!bin_serializer::read_message_header(in, h)) return reject(t, in.last_error());
  auto take = [&](auto& value) {
    const bin_serializer::error e = bin_serializer::decode_zmq_message<wire>(body, value);
    if (!e) return true;
    reject(t, e);
    return false;
  };
  auto sequence = [&](std::uint64_t seq) {
    if (seq != t.next_seq) ++t.out_of_order;
    t.next_seq = seq + 1;
  };
  switch (h.type_id) {
  case bin_serializer::message_id_v<workloads::Tick>: {
    workloads::Tick tick{};
    // A tick's sequence number is its timestamp's offset (make_tick).
    if (!take(tick)) return;
    const std::uint64_t seq = (tick.timestamp_ns - tick_at(0).timestamp_ns) / 1000;
    sequence(seq);
    if (!(tick == tick_at(seq))) ++t.wrong_value;
    ++t.ticks;
    return;
  }
  case Quote::bin_serializer_message_id: {
    Quote q;
    if (!take(q)) return;
    sequence(q.seq);
    if (!(q == quote_at(q.seq))) ++t.wrong_value;
    ++t.quotes;
    return;
  }
  case Note::bin_serializer_message_id: {
    NoteView n; // text points into `body`, used before dispatch returns
    if (!take(n)) return;
    sequence(n.seq);
    if (n.text != note_at(n.seq).text) ++t.wrong_value;
    ++t.notes;
    return;
  }
  case Hello::bin_serializer_message_id: {
    Hello hello;
    if (take(hello)) ++t.hellos;
    return;
  }
  case End::bin_serializer_message_id: {
    End end;
    if (take(end)) t.end_count = end.messages;
    return;
  }
  default: // a type this subscriber does not know: skipped, not an error
    return;
  }
}

// Connects, subscribes to everything, does the handshake, then reads until End
// (or until no message came for `idle`).
class Subscriber {
public:
  Subscriber(zmq::context_t& ctx, const std::string& data_ep, const std::string& sync_ep)
      : sub_(ctx, zmq::socket_type::sub), sync_(ctx, zmq::socket_type::req) {
    sub_.set(zmq::sockopt::linger, 0);
    sub_.set(zmq::sockopt::rcvhwm, 0);
    sync_.set(zmq::sockopt::linger, 0);
    for (const char* topic : {"tick", "quote", "note", "ctl"})
      sub_.set(zmq::sockopt::subscribe, topic);
    sub_.connect(data_ep);
    sync_.connect(sync_ep);
  }

  // Waits for a Hello (subscription live), then tells the publisher.
  bool handshake(std::chrono::milliseconds timeout) {
    sub_.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
    sync_.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
    while (tally.hellos == 0) {
      if (!read_one()) return false;
    }
    sync_.send(zmq::str_buffer("ready"), zmq::send_flags::none);
    zmq::message_t go;
    return sync_.recv(go, zmq::recv_flags::none).has_value();
  }

  // Reads until End; false on a timeout.
  bool run(std::chrono::milliseconds idle) {
    sub_.set(zmq::sockopt::rcvtimeo, static_cast<int>(idle.count()));
    while (!tally.end_count) {
      if (!read_one()) return false;
    }
    return true;
  }

  // One two-frame message; false on a timeout.
  bool read_one() {
    zmq::message_t topic, body;
    if (!sub_.recv(topic, zmq::recv_flags::none)) return false;
    if (!topic.more()) { // a one-frame message is not ours: count it, go on
      reject(tally, {bin_serializer::errc::truncated, 0});
      return true;
    }
    if (!sub_.recv(body, zmq::recv_flags::none)) return false;
    while (body.more()) { // extra frames are not part of the protocol: drained
      zmq::message_t extra;
      if (!sub_.recv(extra, zmq::recv_flags::none)) return false;
    }
    dispatch(body, tally);
    return true;
  }

  Tally tally;

private:
  zmq::socket_t sub_, sync_;
};

} // namespace feed
