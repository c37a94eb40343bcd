// Crash safety proved by crashes: a forked writer is killed with SIGKILL at a
// random moment, hundreds of times in every flushing policy, writing through
// a file descriptor and into a MappedFile; the reader must return exactly a
// prefix of what was written (no record changed, no corruption reported), and
// reopening the log for append must keep that prefix and go on after it.
#include "test_util.hpp"

#include <bin_serializer/buffer/mapped_file.hpp>
#include <bin_serializer/io/fd.hpp>
#include <bin_serializer/log/fd.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "log_types.hpp"

namespace bs = bin_serializer;
using bs::log_end;
using log_test::market;
using S = log_test::market_schema<bs::compact>;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

enum class output { fd, mapped };

[[noreturn]] void child_writes(const std::string& path, output how, bs::log_flush policy) {
  const bs::log_write_options o{.block_bytes = 512, .flush = policy};
  constexpr std::size_t limit = 50'000'000; // never reached: the parent kills first
  if (how == output::fd) {
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) ::_exit(2);
    bs::fd_writer out(fd);
    bs::log_writer<S, bs::fd_writer> w(out, o);
    for (std::size_t i = 0; i < limit; ++i) {
      if (!log_test::write_record(w, market(i))) ::_exit(3);
      if (policy == bs::log_flush::manual && i % 37 == 36 && !w.flush()) ::_exit(3);
    }
  } else {
    bs::MappedFile file;
    if (!file.open(path.c_str(), bs::MappedFile::mode::create)) ::_exit(2);
    bs::log_writer<S, bs::MappedFile> w(file, o);
    for (std::size_t i = 0; i < limit; ++i) {
      if (!log_test::write_record(w, market(i))) ::_exit(3);
      if (policy == bs::log_flush::manual && i % 37 == 36 && !w.flush()) ::_exit(3);
    }
  }
  ::_exit(0);
}

struct outcome {
  std::size_t records = 0;
  log_end end = log_end::none;
};

// Reads the log at path; every record must be market(i) at index i.
outcome check_prefix(const std::string& path) {
  const std::string bytes = slurp(path);
  bs::log_reader<S> r(std::as_bytes(std::span(bytes)));
  outcome out;
  if (!r.ok()) {
    // Killed before the header was published: nothing, part of it, or (a
    // MappedFile) its bytes without the magic, which is written last.
    EXPECT_TRUE(bytes.size() < 16U + 3 * 12 || bytes.substr(0, 4) == std::string(4, '\0')) << path;
    EXPECT_EQ(r.last_error().code, bs::errc::truncated);
    out.end = log_end::torn;
    return out;
  }
  for (;;) {
    log_test::record got;
    if (!r.visit([&got](const auto& v) { got = v; })) break;
    if (got != market(out.records)) {
      ADD_FAILURE() << "record " << out.records << " differs";
      break;
    }
    ++out.records;
  }
  out.end = r.end();
  EXPECT_TRUE(r.end() == log_end::clean || r.end() == log_end::torn)
      << "end " << static_cast<int>(r.end()) << " at " << r.end_offset() << ": "
      << bs::error_name(r.last_error().code);
  return out;
}

void crash_many(output how, bs::log_flush policy, int rounds) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("bs_crash_" + std::to_string(::getpid()) + "_" + std::to_string(static_cast<int>(how)) +
        std::to_string(static_cast<int>(policy))))
          .string();
  std::mt19937 rng(
      static_cast<unsigned>(1234 + static_cast<int>(policy) * 7 + static_cast<int>(how)));
  std::size_t torn = 0, total = 0, nonempty = 0;
  useconds_t base = 0; // grows while kills land before any record (slow hosts, emulators)
  for (int round = 0; round < rounds; ++round) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) child_writes(path, how, policy);
    ::usleep(base + static_cast<useconds_t>(rng() % 4000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended by itself: status " << status;
    const outcome o = check_prefix(path);
    if (::testing::Test::HasFailure()) return;
    // A kill before the first record teaches the delay to wait longer
    // (doubling: an emulator or a loaded host may need tens of ms to start).
    // It shrinks slowly again after kills that found records, so most kills
    // still land early in the writer's life, where the header and first
    // blocks are.
    if (o.records == 0 && base < 500'000)
      base = base == 0 ? 1000 : 2 * base;
    else if (o.records != 0)
      base -= base / 8;
    torn += o.end == log_end::torn;
    total += o.records;
    nonempty += o.records != 0;
    // Every fourth round: append after the crash, then read it all back.
    // Whatever the kill left, the header itself unfinished included.
    if (round % 4 == 0 && std::filesystem::exists(path)) {
      bs::error e;
      std::uint64_t cut = 0;
      const int fd = bs::open_log_for_append<S>(path.c_str(), e, {}, &cut);
      ASSERT_GE(fd, 0) << bs::error_name(e.code) << " at " << e.offset;
      {
        bs::fd_writer out(fd);
        bs::log_writer<S, bs::fd_writer> w(out, bs::log_append);
        for (std::size_t i = o.records; i < o.records + 25; ++i)
          ASSERT_TRUE(log_test::write_record(w, market(i)));
        ASSERT_TRUE(w.close());
      }
      ::close(fd);
      const outcome after = check_prefix(path);
      EXPECT_EQ(after.records, o.records + 25);
      EXPECT_EQ(after.end, log_end::clean);
    }
  }
  std::filesystem::remove(path);
  // The kills landed at various points: some logs hold records, and the
  // policies that leave an open block behind left torn tails too.
  EXPECT_GT(nonempty, static_cast<std::size_t>(rounds) / 8);
  ::testing::Test::RecordProperty("records_read", static_cast<int>(total));
  ::testing::Test::RecordProperty("torn_tails", static_cast<int>(torn));
}

// 200 kills per policy and output (1200 in all) in the gcc and clang stages;
// the asan preset runs 50 per policy (its point is memory errors, and a fork
// of an instrumented process is slow) and s390x, under qemu, 40
// (BIN_SERIALIZER_CRASH_ROUNDS in CMakePresets.json).
int rounds() {
  const char* env = std::getenv("BIN_SERIALIZER_CRASH_ROUNDS");
  return env != nullptr ? std::atoi(env) : 200;
}

} // namespace

TEST(LogCrash, FdFlushPerRecord) { crash_many(output::fd, bs::log_flush::record, rounds()); }
TEST(LogCrash, FdFlushPerBlock) { crash_many(output::fd, bs::log_flush::block, rounds()); }
TEST(LogCrash, FdFlushManual) { crash_many(output::fd, bs::log_flush::manual, rounds()); }
TEST(LogCrash, MappedFlushPerRecord) {
  crash_many(output::mapped, bs::log_flush::record, rounds());
}
TEST(LogCrash, MappedFlushPerBlock) { crash_many(output::mapped, bs::log_flush::block, rounds()); }
TEST(LogCrash, MappedFlushManual) { crash_many(output::mapped, bs::log_flush::manual, rounds()); }
