// A log_stream_reader holds one block at a time: a decoded view would dangle
// once the next block is read, so types with views do not compile with it
// (log_reader over bytes that outlive it takes them).
// EXPECT-ERROR: would dangle
// MAX-ERRORS: 2
// MAX-LINES: 60 clang-19 also prints the instantiation path from read() to the check (notes)
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>
#include <bin_serializer/log/reader.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

struct Note {
  std::uint64_t ts;
#ifdef BIN_SERIALIZER_CF_CONTROL
  std::string text;
#else
  std::string_view text;
#endif
};
using note_log = bin_serializer::log_schema<bin_serializer::compact, Note>;

int main() {
  std::istringstream is("");
  bin_serializer::istream_reader in(is);
  bin_serializer::log_stream_reader<note_log> log(in);
  Note n{};
  return log.read(n) ? 0 : 1;
}
