// fd_writer / fd_reader over pipes and files: bytes, partial reads from a
// pipe fed in small pieces, EOF inside a value, bad descriptors, and a
// reader that does not wait for bytes it does not need.
#include "test_util.hpp"

#include <bin_serializer/io/fd.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <atomic>
#include <chrono>
#include <csignal>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "workloads/car.hpp"
#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using bs::errc;
using test_util::hex;

namespace {

static_assert(bs::WritableBuffer<bs::fd_writer>);
static_assert(bs::ReadableBuffer<bs::fd_reader>);

struct pipe_fds {
  int r = -1, w = -1;
  pipe_fds() {
    int fds[2];
    if (::pipe(fds) == 0) {
      r = fds[0];
      w = fds[1];
    }
  }
  ~pipe_fds() {
    close_w();
    if (r >= 0) ::close(r);
  }
  void close_w() {
    if (w >= 0) ::close(w);
    w = -1;
  }
};

std::string drain(int fd) {
  std::string out;
  char tmp[4096];
  for (;;) {
    const ssize_t n = ::read(fd, tmp, sizeof tmp);
    if (n <= 0) break;
    out.append(tmp, static_cast<std::size_t>(n));
  }
  return out;
}

TEST(FdIo, GoldenBytesThroughAPipe) {
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  {
    bs::fd_writer w(p.w);
    ASSERT_TRUE(bs::serialize<bs::portable>(w, std::uint16_t{0x0102})); // same bytes on every host
    ASSERT_TRUE(bs::serialize<bs::portable>(w, std::string("hi")));
    ASSERT_TRUE(w.flush());
    EXPECT_EQ(w.position(), 12u);
  }
  p.close_w();
  const std::string got = drain(p.r);
  EXPECT_EQ(hex(std::span<const std::byte>(reinterpret_cast<const std::byte*>(got.data()), got.size())),
            "0201" "0200000000000000" "6869");
}

TEST(FdIo, RoundTripThroughAFileWithSmallBlock) {
  char path[] = "/tmp/bs_fd_io_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  {
    bs::basic_fd_writer<128> w(fd);
    for (std::uint64_t i = 0; i < 2000; ++i)
      ASSERT_TRUE(bs::serialize(w, workloads::make_car_sequential(i)));
    ASSERT_TRUE(w.flush());
  }
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  {
    bs::basic_fd_reader<128> r(fd);
    for (std::uint64_t i = 0; i < 2000; ++i) {
      workloads::Car c;
      ASSERT_TRUE(bs::deserialize(r, c)) << i;
      ASSERT_EQ(c, workloads::make_car_sequential(i));
    }
    EXPECT_TRUE(r.at_end());
  }
  ::close(fd);
  ::unlink(path);
}

TEST(FdIo, ReaderReassemblesValuesDeliveredInPieces) {
  // The writer thread hands the bytes over three at a time: every read() on
  // the pipe returns a short count, and values straddle them.
  bs::Buffer all;
  for (std::uint64_t i = 0; i < 200; ++i) ASSERT_TRUE(bs::serialize(all, workloads::make_tick(i)));
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  std::thread feeder([&] {
    for (std::size_t off = 0; off < all.size(); off += 3) {
      const std::size_t n = std::min<std::size_t>(3, all.size() - off);
      if (::write(p.w, all.data() + off, n) != static_cast<ssize_t>(n)) break;
    }
    p.close_w();
  });
  bs::fd_reader r(p.r);
  for (std::uint64_t i = 0; i < 200; ++i) {
    workloads::Tick t{};
    ASSERT_TRUE(bs::deserialize(r, t)) << i;
    EXPECT_EQ(t, workloads::make_tick(i));
  }
  EXPECT_TRUE(r.at_end());
  feeder.join();
}

TEST(FdIo, ReaderDoesNotWaitForBytesItDoesNotNeed) {
  // One value in the pipe, the writer end still open: a reader that tried to
  // fill its whole block would block forever here.
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  {
    bs::fd_writer w(p.w);
    ASSERT_TRUE(bs::serialize(w, std::uint32_t{42}));
    ASSERT_TRUE(w.flush());
  }
  bs::fd_reader r(p.r);
  std::uint32_t v = 0;
  ASSERT_TRUE(bs::deserialize(r, v));
  EXPECT_EQ(v, 42u);
}

TEST(FdIo, EndOfInputInsideAValueIsTruncated) {
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  ASSERT_EQ(::write(p.w, "\x05\x00\x00\x00\x00\x00\x00\x00" "abc", 11), 11);
  p.close_w();
  bs::fd_reader r(p.r);
  std::string s;
  EXPECT_FALSE(bs::deserialize<bs::portable>(r, s)); // the prefix above is little-endian
  EXPECT_EQ(r.last_error().code, errc::truncated);
  EXPECT_EQ(r.last_error().offset, 8u);
}

// A string whose prefix claims 1 MB, of which 11 bytes arrive before the
// writer closes: the read bypasses the block, and the failed decode must
// still rewind to the prefix.
TEST(FdIo, OversizedLengthPrefixStillRewindsToTheValue) {
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  const std::uint64_t head = 3, claim = 1u << 20;
  ASSERT_EQ(::write(p.w, &head, 8), 8);
  ASSERT_EQ(::write(p.w, &claim, 8), 8);
  ASSERT_EQ(::write(p.w, "hello world", 11), 11);
  p.close_w();
  bs::fd_reader r(p.r);
  std::uint64_t first = 0;
  ASSERT_TRUE(bs::deserialize(r, first));
  std::string s;
  EXPECT_FALSE(bs::deserialize(r, s));
  EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 16}));
  EXPECT_EQ(r.read_position(), 8u);
  EXPECT_TRUE(r.in_sync());
  std::uint64_t prefix = 0;
  ASSERT_TRUE(bs::deserialize(r, prefix));
  EXPECT_EQ(prefix, claim);
  char rest[11];
  ASSERT_TRUE(r.read(rest, sizeof rest));
  EXPECT_EQ(std::string(rest, sizeof rest), "hello world");
}

// Small block, a value that straddles a refill, truncated: back to its start.
TEST(FdIo, RefillKeepsTheOpenValuesBytes) {
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  bs::Buffer buf;
  for (std::uint64_t i = 0; i < 6; ++i) ASSERT_TRUE(bs::serialize(buf, i)); // 48 bytes
  ASSERT_TRUE(bs::serialize(buf, std::uint64_t{30}));                       // string prefix
  ASSERT_EQ(::write(p.w, buf.data(), buf.size()), static_cast<ssize_t>(buf.size()));
  ASSERT_EQ(::write(p.w, "0123456789", 10), 10);
  p.close_w();
  bs::basic_fd_reader<64> r(p.r);
  for (std::uint64_t i = 0; i < 5; ++i) {
    std::uint64_t v = 99;
    ASSERT_TRUE(bs::deserialize(r, v));
  }
  std::tuple<std::uint64_t, std::string> t; // starts at byte 40
  EXPECT_FALSE(bs::deserialize(r, t));
  EXPECT_EQ(r.last_error(), (bs::error{errc::truncated, 56}));
  EXPECT_EQ(r.read_position(), 40u);
  EXPECT_TRUE(r.in_sync());
}

TEST(FdIo, LargeValuesGoStraightToTheDescriptor) {
  char path[] = "/tmp/bs_fd_io_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<std::uint32_t> big(50'000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint32_t>(i * 31);
  {
    bs::basic_fd_writer<256> w(fd);
    ASSERT_TRUE(bs::serialize(w, big));
    ASSERT_TRUE(w.flush());
  }
  ASSERT_EQ(::lseek(fd, 0, SEEK_END), static_cast<off_t>(8 + big.size() * 4));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  bs::basic_fd_reader<256> r(fd);
  std::vector<std::uint32_t> back;
  ASSERT_TRUE(bs::deserialize(r, back));
  EXPECT_EQ(back, big);
  ::close(fd);
  ::unlink(path);
}

// A handler installed without SA_RESTART: a blocked read()/write() in the
// signalled thread returns EINTR, or a partial count if some bytes moved.
std::atomic<int> signals_seen{0};
extern "C" void count_signal(int) { signals_seen.fetch_add(1, std::memory_order_relaxed); }

struct interrupting_handler {
  struct sigaction old{};
  interrupting_handler() {
    struct sigaction sa{};
    sa.sa_handler = count_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART
    ::sigaction(SIGUSR1, &sa, &old);
  }
  ~interrupting_handler() { ::sigaction(SIGUSR1, &old, nullptr); }
};

TEST(FdIo, InterruptedAndPartialWritesStillDeliverEveryByte) {
  interrupting_handler handler;
  signals_seen = 0;
  std::vector<std::uint32_t> big(1 << 18); // 1 MiB: far more than a pipe holds
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint32_t>(i * 2654435761u);
  pipe_fds p;
  ASSERT_GE(p.r, 0);
#if defined(F_SETPIPE_SZ)
  (void)::fcntl(p.w, F_SETPIPE_SZ, 4096); // a small pipe: the writer blocks many times
#endif
  std::atomic<bool> done{false};
  bool wrote = false;
  std::thread writer([&] {
    bs::fd_writer w(p.w);
    wrote = bs::serialize(w, big) && w.flush();
    done = true;
    p.close_w();
  });
  // Signal the writer while it is blocked on the full pipe, and drain slowly.
  std::thread signaller([&] {
    while (!done) {
      ::pthread_kill(writer.native_handle(), SIGUSR1);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  // The writer is now blocked on the full pipe (1 MiB into 4 KiB): let at
  // least one signal land there before draining, however the threads are
  // scheduled on a loaded machine (bounded wait).
  for (int i = 0; i < 5000 && signals_seen.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  bs::fd_reader r(p.r);
  std::vector<std::uint32_t> back;
  const bool read_ok = bs::deserialize(r, back);
  signaller.join();
  writer.join();
  EXPECT_TRUE(wrote);
  ASSERT_TRUE(read_ok) << static_cast<int>(r.last_error().code);
  EXPECT_EQ(back, big);
  EXPECT_GT(signals_seen.load(), 0);
}

TEST(FdIo, InterruptedReadIsRetried) {
  interrupting_handler handler;
  signals_seen = 0;
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  std::atomic<bool> started{false};
  std::uint64_t got = 0;
  bool ok = false;
  std::thread reader([&] {
    bs::fd_reader r(p.r);
    started = true;
    ok = bs::deserialize(r, got); // blocks on the empty pipe
  });
  while (!started) std::this_thread::yield();
  for (int i = 0; i < 20; ++i) {
    ::pthread_kill(reader.native_handle(), SIGUSR1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::uint64_t v = 0x1122334455667788u;
  ASSERT_EQ(::write(p.w, &v, sizeof v), static_cast<ssize_t>(sizeof v));
  reader.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(got, v);
  EXPECT_GT(signals_seen.load(), 0);
}

// skip(n): a regular file seeks (the descriptor's offset lands exactly on
// the reader's, so nothing past it was read), never past the file's end; a
// pipe reads and drops. Both give the same bytes after.
TEST(FdIo, SkipSeeksInAFileNeverPastItsEnd) {
  char path[] = "/tmp/bs_fd_skip_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string data = test_util::byte_pattern(100000);
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  bs::fd_reader r(fd);
  char got[4];
  ASSERT_TRUE(r.read(got, 4)); // the block now holds the first 8 KiB
  EXPECT_EQ(std::string(got, 4), data.substr(0, 4));
  EXPECT_EQ(r.skip(10), 10U); // inside the block
  EXPECT_EQ(r.read_position(), 14U);
  EXPECT_EQ(r.skip(50000), 50000U); // past the block: a seek
  EXPECT_EQ(r.read_position(), 50014U);
  EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), 50014); // no byte past it was read
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(std::string(got, 4), data.substr(50014, 4));
  // Past the end: what the file holds, then the end.
  EXPECT_EQ(r.skip(1U << 30), 100000U - 50018U);
  EXPECT_EQ(r.read_position(), 100000U);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), 100000);
  // Bytes appended later are read after the skip.
  ASSERT_EQ(::pwrite(fd, "xyz", 3, 100000), 3);
  ASSERT_TRUE(r.read(got, 3));
  EXPECT_EQ(std::string(got, 3), "xyz");
  EXPECT_FALSE(r.failed());
  ::close(fd);
  ::unlink(path);
}

TEST(FdIo, SkipReadsAndDropsFromAPipe) {
  pipe_fds p;
  ASSERT_GE(p.r, 0);
  const std::string data = test_util::byte_pattern(30000); // within a pipe's buffer
  ASSERT_EQ(::write(p.w, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  p.close_w();
  bs::basic_fd_reader<256> r(p.r);
  char got[4];
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(r.skip(20000), 20000U);
  EXPECT_EQ(r.read_position(), 20004U);
  ASSERT_TRUE(r.read(got, 4));
  EXPECT_EQ(std::string(got, 4), data.substr(20004, 4));
  EXPECT_EQ(r.skip(1U << 20), 30000U - 20008U);
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.failed());
}

TEST(FdIo, SkipOnABadDescriptorIsIoError) {
  bs::fd_reader r(-1);
  EXPECT_EQ(r.skip(100), 0U);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.last_error().code, errc::io_error);
}

TEST(FdIo, BadDescriptorIsIoError) {
  bs::fd_writer w(-1);
  ASSERT_TRUE(bs::serialize(w, std::uint64_t{1})); // buffered
  EXPECT_FALSE(w.flush());
  EXPECT_EQ(w.last_error(), (bs::error{errc::io_error, 8}));

  bs::fd_reader r(-1);
  std::uint64_t v = 0;
  EXPECT_FALSE(bs::deserialize(r, v));
  EXPECT_EQ(r.last_error(), (bs::error{errc::io_error, 0}));
  EXPECT_FALSE(r.at_end());
}

TEST(FdIo, WriteToAReadOnlyDescriptorFailsTheSerialize) {
  const int fd = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  bs::basic_fd_writer<64> w(fd);
  const std::vector<std::uint8_t> v(200, 1);
  EXPECT_FALSE(bs::serialize(w, v));
  EXPECT_EQ(w.last_error().code, errc::io_error);
  ::close(fd);
}

} // namespace
