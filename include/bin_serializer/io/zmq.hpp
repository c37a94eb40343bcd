// ZeroMQ (cppzmq, <zmq.hpp>) with framed bin_serializer messages: one framed
// message (message.hpp) per ZeroMQ message or frame. Include after or instead
// of <zmq.hpp>; the program links libzmq.
//
//   bin_serializer::send_message<bin_serializer::portable>(socket, quote);
//
//   Quote q;                                   // owning types: decoded, message dropped
//   auto r = bin_serializer::recv_message<bin_serializer::portable>(socket, q);
//   if (r) use(q); else if (r.received) log(r.failure);  // errc and offset
//
//   bin_serializer::zmq_received<NoteView> n;  // a type holding views: kept with its message
//   if (bin_serializer::recv_message<bin_serializer::portable>(socket, n)) use(n->text);
//
// Copies: a message is serialized straight into the zmq::message_t that is
// sent (measured first, no intermediate buffer) and decoded straight from the
// received one.
//
// Views: a std::string_view, std::span, array_view or sequence_view decoded
// from a message points into that message's bytes (borrows_input_v,
// core/shape.hpp). recv_message into a plain T drops the message when it
// returns, so for such a T it does not compile; zmq_received<T> keeps the
// message alive (on the heap) as long as the value. decode_zmq_message
// decodes from a message the caller holds: views then stay valid while that
// message is neither destroyed, rebuilt nor moved (ZeroMQ keeps a message of
// up to 33 bytes inside the zmq::message_t itself, so moving it moves the
// bytes).
//
// Errors: decode errors are the library's (errc and offset); a message with
// bytes after its framed message is errc::invalid_value at the first of them.
// Socket errors are cppzmq's: it throws zmq::error_t (nothing in this header
// throws).
#pragma once

#include <zmq.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "../bin_serializer.hpp"
#include "../buffer/buffer_view.hpp"
#include "../buffer/span_buffer.hpp"

namespace bin_serializer {

// What a receive gave.
struct zmq_recv_result {
  bool received = false; // a message arrived (false: none yet with dontwait, or a timeout)
  error failure;         // why that message did not decode (errc::ok when it did)
  [[nodiscard]] explicit operator bool() const noexcept { return received && !failure; }
};

// value as one framed message, in a zmq::message_t of exactly its size.
template <options Opts = native, class T>
zmq::message_t to_zmq_message(const T& value) {
  zmq::message_t msg(message_header_size_v<T> + serialized_size<Opts>(value));
  SpanBuffer out(msg.data(), msg.size());
  const bool ok = serialize_message<Opts>(out, value) && out.full();
  (void)ok; // cannot fail: the storage has exactly the measured size
  return msg;
}

// Sends value as one message (or frame, with zmq::send_flags::sndmore).
// False when the socket would block (dontwait) or timed out.
template <options Opts = native, class T>
bool send_message(zmq::socket_t& socket, const T& value,
                  zmq::send_flags flags = zmq::send_flags::none) {
  zmq::message_t msg = to_zmq_message<Opts>(value);
  return socket.send(msg, flags).has_value();
}

// Decodes the message `msg` holds into out: errc::ok, or why not. A view in
// out points into msg (see the top of this header).
template <options Opts = native, class T>
error decode_zmq_message(const zmq::message_t& msg, T& out) {
  BufferView in(msg.data(), msg.size());
  if (!deserialize_message<Opts>(in, out)) return in.last_error();
  if (in.remaining() != 0) return {errc::invalid_value, in.read_position()};
  return {};
}

// A decoded T together with the message it was decoded from, so the views in
// T stay valid as long as this object (moving it keeps them valid: the
// message stays where it is, on the heap).
template <class T>
class zmq_received {
public:
  zmq_received() = default;

  [[nodiscard]] const T& value() const noexcept { return value_; }
  [[nodiscard]] const T& operator*() const noexcept { return value_; }
  [[nodiscard]] const T* operator->() const noexcept { return &value_; }
  // The frame it came from (its more() says whether a frame follows).
  [[nodiscard]] const zmq::message_t* message() const noexcept { return msg_.get(); }

private:
  template <options Opts, class U>
  friend zmq_recv_result recv_message(zmq::socket_t&, zmq_received<U>&, zmq::recv_flags);
  std::unique_ptr<zmq::message_t> msg_;
  T value_{};
};

namespace detail {
template <class T>
struct zmq_receive_into_view {
  static_assert(dependent_false<T>,
                "bin_serializer: recv_message would decode this type (named in this diagnostic) "
                "from a ZeroMQ message it then drops, but the type holds a std::string_view, "
                "std::span, array_view or sequence_view that would point into that message. "
                "Receive into a bin_serializer::zmq_received<T> (keeps the message with the "
                "value), or use owning members (std::string, std::vector<T>).");
};
} // namespace detail

// Receives one message (frame) and decodes it into out; the message is
// dropped on return, so T must own its bytes (else: zmq_received<T>). With
// recv_flags::dontwait or a receive timeout, received is false when nothing
// came.
template <options Opts = native, class T>
zmq_recv_result recv_message(zmq::socket_t& socket, T& out,
                             zmq::recv_flags flags = zmq::recv_flags::none) {
  if constexpr (borrows_input_v<T, Opts>) {
    (void)sizeof(detail::zmq_receive_into_view<T>);
    return {};
  } else {
    zmq::message_t msg;
    if (!socket.recv(msg, flags)) return {};
    return {true, decode_zmq_message<Opts>(msg, out)};
  }
}

// The same, keeping the message with the value: T may hold views.
template <options Opts = native, class T>
zmq_recv_result recv_message(zmq::socket_t& socket, zmq_received<T>& out,
                             zmq::recv_flags flags = zmq::recv_flags::none) {
  auto msg = std::make_unique<zmq::message_t>();
  if (!socket.recv(*msg, flags)) return {};
  out.msg_ = std::move(msg);
  return {true, decode_zmq_message<Opts>(*out.msg_, out.value_)};
}

} // namespace bin_serializer
