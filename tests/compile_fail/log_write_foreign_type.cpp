// A record of a type the log_schema does not hold does not compile; the
// message says to add it to the schema.
// EXPECT-ERROR: is not one of the types of this log_schema
// MAX-ERRORS: 2
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/log/writer.hpp>

#include <cstdint>

struct Trade {
  std::uint64_t ts;
  std::int64_t px;
};
struct Halt {
  std::uint64_t ts;
  char reason;
};
#ifdef BIN_SERIALIZER_CF_CONTROL
using market_log = bin_serializer::log_schema<bin_serializer::compact, Trade, Halt>;
#else
using market_log = bin_serializer::log_schema<bin_serializer::compact, Trade>;
#endif

int main() {
  bin_serializer::Buffer buf;
  bin_serializer::log_writer<market_log, bin_serializer::Buffer> log(buf);
  return log.write(Halt{1, 'x'}) ? 0 : 1;
}
