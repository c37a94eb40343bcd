// An append-only message log in a memory-mapped file: write 1M Ticks, close,
// reopen, read them all back and check them; prints the throughput of both
// directions. Usage: example_mmap_log [path]   (default: a file in /tmp)
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/mapped_file.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using workloads::Tick;

namespace {

constexpr std::uint64_t count = 1'000'000;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(const char* what, double secs, std::size_t bytes) {
  std::printf("%-6s %8.1f ms  %7.1f M ticks/s  %8.1f MB/s\n", what, secs * 1e3,
              static_cast<double>(count) / secs / 1e6, static_cast<double>(bytes) / secs / 1e6);
}

} // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : "/tmp/bs_mmap_log_" + std::to_string(::getpid()) + ".bin";

  // Write: every tick is a memcpy into the mapping; the file grows by doubling.
  auto t0 = std::chrono::steady_clock::now();
  {
    bs::MappedFile log;
    if (!log.open(path.c_str(), bs::MappedFile::mode::create)) {
      std::fprintf(stderr, "open %s: %s\n", path.c_str(),
                   std::string(log.last_error().message()).c_str());
      return 1;
    }
    bs::batch_writer out(log);
    for (std::uint64_t i = 0; i < count; ++i) {
      if (!out.write(workloads::make_tick(i))) {
        std::fprintf(stderr, "write tick %llu: %s\n", static_cast<unsigned long long>(i),
                     std::string(log.last_error().message()).c_str());
        return 1;
      }
    }
    out.finish();
    // close() trims the file to the bytes written; sync() first would make
    // them durable, at the price of waiting for the device.
    if (!log.close()) {
      std::fprintf(stderr, "close: %s\n", std::string(log.last_error().message()).c_str());
      return 1;
    }
  }
  const double write_s = seconds_since(t0);

  // Read back: reopen read-only and decode until the log is exhausted.
  t0 = std::chrono::steady_clock::now();
  bs::MappedFile log;
  if (!log.open(path.c_str(), bs::MappedFile::mode::read_only)) {
    std::fprintf(stderr, "reopen failed\n");
    return 1;
  }
  const std::size_t bytes = log.size();
  std::uint64_t n = 0;
  Tick t{};
  while (log.remaining() != 0) {
    if (!bs::deserialize(log, t) || t != workloads::make_tick(n)) {
      std::fprintf(stderr, "tick %llu does not read back\n", static_cast<unsigned long long>(n));
      return 1;
    }
    ++n;
  }
  const double read_s = seconds_since(t0);
  (void)log.close();
  std::remove(path.c_str());

  if (n != count) {
    std::fprintf(stderr, "read %llu ticks, expected %llu\n", static_cast<unsigned long long>(n),
                 static_cast<unsigned long long>(count));
    return 1;
  }
  std::printf("%llu ticks, %zu bytes\n", static_cast<unsigned long long>(count), bytes);
  report("write", write_s, bytes);
  report("read", read_s, bytes);
  return 0;
}
