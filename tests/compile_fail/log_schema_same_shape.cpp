// Two types of one wire shape in a log_schema: a reader could not tell their
// records apart, so the schema does not compile and says to give each a
// message type id.
// EXPECT-ERROR: give each a message type id
// EXPECT-ERROR: bin_serializer_message_id
// MAX-ERRORS: 2
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/log/writer.hpp>

#include <cstdint>

struct Bid {
  std::uint64_t ts;
  double px;
};
struct Ask {
  std::uint64_t ts;
  double px;
#ifdef BIN_SERIALIZER_CF_CONTROL
  static constexpr std::uint32_t bin_serializer_message_id = 2;
#endif
};
using book_log = bin_serializer::log_schema<bin_serializer::compact, Bid, Ask>;

int main() {
  bin_serializer::Buffer buf;
  bin_serializer::log_writer<book_log, bin_serializer::Buffer> log(buf);
  return log.write(Ask{1, 2.5}) ? 0 : 1;
}
