// A market-data recorder: one million records of three types (35 % Trade,
// 60 % Quote, 5 % Status) written to a record log in a memory-mapped file,
// compact format, then read back, checked, and counted. The log describes
// itself: `python -m bin_serializer cat FILE` prints it with no code, and
// python/examples/market_log.py reads it into dataclasses.
//
// Usage: example_market_log [path] [records]   (default: market.bsl in the build dir)
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/buffer/mapped_file.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "workloads/market.hpp"

namespace bs = bin_serializer;

using workloads::Quote;
using workloads::Status;
using workloads::Trade;

// The one place that says what the log holds, and in which format.
using market_log = bs::log_schema<bs::compact, Trade, Quote, Status>;

using record = workloads::market_record;
using workloads::market; // record i of the mix

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(BIN_SERIALIZER_EXAMPLE_OUTPUT_DIR) + "/market.bsl";
  const std::uint64_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;

  // Write. Blocks of 4 KiB are sealed (CRC32C) as they fill; a crash loses
  // at most the open block, and the reader then reports a torn tail.
  std::size_t header = 0;
  {
    bs::MappedFile file;
    if (!file.open(path.c_str(), bs::MappedFile::mode::create)) {
      std::fprintf(stderr, "open %s failed\n", path.c_str());
      return 1;
    }
    bs::log_writer<market_log, bs::MappedFile> log(file);
    header = file.size();
    for (std::uint64_t i = 0; i < count; ++i) {
      const bool ok = std::visit([&log](const auto& v) { return log.write(v); }, market(i));
      if (!ok) {
        std::fprintf(stderr, "record %llu: %s\n", static_cast<unsigned long long>(i),
                     std::string(bs::error_name(log.last_error().code)).c_str());
        return 1;
      }
    }
    if (!log.close() || !file.close()) {
      std::fprintf(stderr, "closing %s failed\n", path.c_str());
      return 1;
    }
  }

  // Read it back: every record is checked against what was written.
  bs::MappedFile file;
  if (!file.open(path.c_str(), bs::MappedFile::mode::read_only)) return 1;
  bs::log_reader<market_log> log(file.bytes());
  if (!log.ok()) {
    std::fprintf(stderr, "not a market log: %s at %zu\n",
                 std::string(bs::error_name(log.last_error().code)).c_str(),
                 log.last_error().offset);
    return 1;
  }
  std::uint64_t counts[3] = {}, i = 0, wrong = 0;
  while (log.visit([&](const auto& v) {
    using T = std::remove_cvref_t<decltype(v)>;
    ++counts[market_log::index_of<T>()];
    const record expected = market(i++);
    if (!std::holds_alternative<T>(expected) || std::get<T>(expected) != v) ++wrong;
  })) {
  }
  if (log.end() != bs::log_end::clean || i != count || wrong != 0) {
    std::fprintf(stderr, "read %llu of %llu records, %llu wrong, end %d at %llu\n",
                 static_cast<unsigned long long>(i), static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(wrong), static_cast<int>(log.end()),
                 static_cast<unsigned long long>(log.end_offset()));
    return 1;
  }
  const double per_record = static_cast<double>(file.size() - header) / static_cast<double>(count);
  std::printf("%s: %llu records (%llu Trade, %llu Quote, %llu Status), %zu bytes, "
              "header %zu bytes, %.2f bytes per record\n",
              path.c_str(), static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(counts[0]),
              static_cast<unsigned long long>(counts[1]),
              static_cast<unsigned long long>(counts[2]), file.size(), header, per_record);
  return 0;
}
