// recv_message drops the ZeroMQ message when it returns: receiving a type
// with a std::string_view into it must not compile. The control receives it
// into a zmq_received<T>, which keeps the message with the value.
//
// EXPECT-ERROR: recv_message would decode this type \(named in this diagnostic\)
// EXPECT-ERROR: zmq_received<T>
// EXPECT-ERROR: NoteView
#include <bin_serializer/io/zmq.hpp>

#include <cstdint>
#include <string_view>

struct NoteView {
  std::uint64_t seq;
  std::string_view text;
};

int main() {
  zmq::context_t ctx;
  zmq::socket_t sub(ctx, zmq::socket_type::sub);
#ifndef BIN_SERIALIZER_CF_CONTROL
  NoteView note{};
  const auto r = bin_serializer::recv_message<bin_serializer::portable>(sub, note);
  return r && note.text.empty() ? 0 : 1;
#else
  bin_serializer::zmq_received<NoteView> note;
  const auto r = bin_serializer::recv_message<bin_serializer::portable>(sub, note);
  return r && note->text.empty() ? 0 : 1;
#endif
}
