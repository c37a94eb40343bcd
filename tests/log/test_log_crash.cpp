// Crash safety proved by crashes: a forked writer is killed with SIGKILL at a
// random moment, hundreds of times in every flushing policy, writing through
// a file descriptor and into a MappedFile; the reader must return exactly a
// prefix of what was written (no record changed, no corruption reported), and
// reopening the log for append must keep that prefix and go on after it.
#include "test_util.hpp"

#include <bin_serializer/buffer/mapped_file.hpp>
#include <bin_serializer/io/fd.hpp>
#include <bin_serializer/log/fd.hpp>
#include <bin_serializer/log/follow.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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

// Gives back every flock this process holds: a writer on a file system
// without flock, which a follower cannot see (log_file_has_writer is false).
void drop_locks() {
  for (int fd = 3; fd < 1024; ++fd) ::flock(fd, LOCK_UN);
}

// paced: a pause every 64 records, so that a reader that polls the file
// (follow_while_written) is not outrun by a writer as fast as the disk cache.
[[noreturn]] void child_writes(const std::string& path, output how, bs::log_flush policy,
                               bool paced = false, bool unlocked = false) {
  const bs::log_write_options o{.block_bytes = 512, .flush = policy};
  constexpr std::size_t limit = 50'000'000; // never reached: the parent kills first
  if (how == output::fd) {
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) ::_exit(2);
    bs::fd_writer out(fd);
    bs::log_writer<S, bs::fd_writer> w(out, o);
    if (unlocked) drop_locks();
    for (std::size_t i = 0; i < limit; ++i) {
      if (!log_test::write_record(w, market(i))) ::_exit(3);
      if (policy == bs::log_flush::manual && i % 37 == 36 && !w.flush()) ::_exit(3);
      if (paced && i % 64 == 63) ::usleep(20);
    }
  } else {
    bs::MappedFile file;
    if (!file.open(path.c_str(), bs::MappedFile::mode::create)) ::_exit(2);
    bs::log_writer<S, bs::MappedFile> w(file, o);
    if (unlocked) drop_locks();
    for (std::size_t i = 0; i < limit; ++i) {
      if (!log_test::write_record(w, market(i))) ::_exit(3);
      if (policy == bs::log_flush::manual && i % 37 == 36 && !w.flush()) ::_exit(3);
      if (paced && i % 64 == 63) ::usleep(20);
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

// A file of this process for one test, output and policy.
std::string scratch_path(const char* test, output how, bs::log_flush policy) {
  return (std::filesystem::temp_directory_path() /
          (std::string(test) + "_" + std::to_string(::getpid()) + "_" +
           std::to_string(static_cast<int>(how)) + std::to_string(static_cast<int>(policy))))
      .string();
}

// Random moments, the same for each run of one test, output and policy.
std::mt19937 moments(unsigned seed, output how, bs::log_flush policy) {
  return std::mt19937(
      static_cast<unsigned>(seed + static_cast<unsigned>(policy) * 7 + static_cast<unsigned>(how)));
}

void crash_many(output how, bs::log_flush policy, int rounds) {
  const std::string path = scratch_path("bs_crash", how, policy);
  std::mt19937 rng = moments(1234, how, policy);
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

// A log followed while a forked writer writes it, then killed: a reader
// polls the file, each time from where the last one ended (start =
// valid_end()), and the records it collects are exactly those a reader of
// the whole file returns after the kill, in order, each read once. The
// writer is killed while the follower reads, and the follower never sees
// corruption: an unpublished block is a torn tail, read in full later.
// The follower maps the file at each poll, or (stream) reads it through an
// fd_reader, which seeks past the bytes before `at`, or is a log_follower
// (log/follow.hpp), which does that on its own descriptor and must never
// say corrupt either: while the writer holds its lock, the first unsealed
// block ends each reading; without a lock (unlocked: a writer on a file
// system without flock) each reading checks the whole rest of the file, and
// a block it finds open while a later one is sealed (a writer into a
// mapping) it reads again.
enum class poller { mapping, stream, follower };
void follow_while_written(output how, bs::log_flush policy, int rounds, poller by = poller::mapping,
                          bool unlocked = false) {
  const std::string path = scratch_path("bs_follow", how, policy);
  std::mt19937 rng = moments(99, how, policy);
  std::size_t total = 0, polls_with_records = 0;
  for (int round = 0; round < rounds; ++round) {
    std::filesystem::remove(path);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) child_writes(path, how, policy, true, unlocked);
    std::vector<log_test::record> seen;
    std::uint64_t at = 0;
    std::optional<bs::log_follower<S>> follower;
    if (by == poller::follower) follower.emplace(path);
    // Each poll maps the file as it stands (reading it whole every time
    // would cost more than the writer's progress), and reads from `at` on.
    const auto read_from = [&](auto& r) {
      if (!r.ok()) {
        // No header yet (or a header whose magic is not yet written).
        EXPECT_EQ(at, 0U);
        EXPECT_EQ(r.last_error().code, bs::errc::truncated) << bs::error_name(r.last_error().code);
        return;
      }
      const std::size_t before = seen.size();
      for (;;) {
        log_test::record got;
        if (!r.visit([&got](const auto& v) { got = v; })) break;
        seen.push_back(got);
      }
      EXPECT_TRUE(r.end() == log_end::clean || r.end() == log_end::torn)
          << "end " << static_cast<int>(r.end()) << " at " << r.end_offset();
      polls_with_records += seen.size() > before;
      at = r.valid_end();
    };
    const auto poll = [&] {
      if (by == poller::follower) {
        const std::size_t before = seen.size();
        log_test::record got;
        while (follower->visit([&got](const auto& v) { got = v; })) seen.push_back(got);
        EXPECT_EQ(follower->state(), bs::log_follow_state::caught_up)
            << "state " << static_cast<int>(follower->state()) << ": "
            << bs::error_name(follower->last_error().code) << " at "
            << follower->last_error().offset;
        polls_with_records += seen.size() > before;
        return;
      }
      if (by == poller::stream) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return; // not created yet
        struct stat st{};
        if (::fstat(fd, &st) == 0 && st.st_size != 0) {
          bs::fd_reader in(fd);
          bs::log_stream_reader<S> r(in, {.start = at});
          read_from(r);
        }
        ::close(fd);
        return;
      }
      bs::MappedFile file;
      if (!file.open(path.c_str(), bs::MappedFile::mode::read_only) || file.size() == 0)
        return; // not created yet
      bs::log_reader<S> r(file.bytes(), {.start = at});
      read_from(r);
    };
    // The first records (a slow host, an emulator, may take a while to
    // start the writer), then a few more polls at random moments.
    for (int i = 0; i < 5000 && seen.empty() && !::testing::Test::HasFailure(); ++i) {
      ::usleep(1000);
      poll();
    }
    const int polls = 2 + static_cast<int>(rng() % 6);
    for (int i = 0; i < polls; ++i) {
      ::usleep(200 + static_cast<useconds_t>(rng() % 1500));
      poll();
      if (::testing::Test::HasFailure()) break;
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    poll(); // what the writer sealed after the last poll, up to its death
    const outcome whole = check_prefix(path);
    ASSERT_EQ(seen.size(), whole.records) << "round " << round;
    for (std::size_t i = 0; i < seen.size(); ++i)
      ASSERT_EQ(seen[i], market(i)) << "round " << round << ", record " << i;
    if (::testing::Test::HasFailure()) return;
    total += seen.size();
  }
  std::filesystem::remove(path);
  // It read while the log was written: at least once a round.
  EXPECT_GE(polls_with_records, static_cast<std::size_t>(rounds));
  ::testing::Test::RecordProperty("records_followed", static_cast<int>(total));
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
TEST(LogCrash, FollowedWhileWrittenThroughAnFd) {
  follow_while_written(output::fd, bs::log_flush::record, rounds() / 10);
  follow_while_written(output::fd, bs::log_flush::block, rounds() / 10);
}
TEST(LogCrash, FollowedThroughAnFdReaderWhileWrittenThroughAnFd) {
  follow_while_written(output::fd, bs::log_flush::record, rounds() / 10, poller::stream);
  follow_while_written(output::fd, bs::log_flush::block, rounds() / 10, poller::stream);
}
TEST(LogCrash, FollowedByALogFollowerWhileWrittenThroughAnFd) {
  follow_while_written(output::fd, bs::log_flush::record, rounds() / 10, poller::follower);
  follow_while_written(output::fd, bs::log_flush::block, rounds() / 10, poller::follower);
}
TEST(LogCrash, FollowedByALogFollowerWhileWrittenIntoAMappedFile) {
  follow_while_written(output::mapped, bs::log_flush::record, rounds() / 10, poller::follower);
  follow_while_written(output::mapped, bs::log_flush::block, rounds() / 10, poller::follower);
}
TEST(LogCrash, FollowedByALogFollowerWhileWrittenIntoAMappedFileWithoutALock) {
  follow_while_written(output::mapped, bs::log_flush::record, rounds() / 10, poller::follower,
                       true);
  follow_while_written(output::mapped, bs::log_flush::block, rounds() / 10, poller::follower, true);
}
TEST(LogCrash, FollowedWhileWrittenIntoAMappedFile) {
  follow_while_written(output::mapped, bs::log_flush::record, rounds() / 10);
  follow_while_written(output::mapped, bs::log_flush::block, rounds() / 10);
}
