// MappedFile: the append-only log (1M Ticks written, closed, reopened, read
// back), golden bytes on disk, growth, reopen-and-append, read-only mode,
// truncated files, unwritable paths, and the fast-path concepts.
#include "test_util.hpp"

#include <bin_serializer/io/mapped_file.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "workloads/car.hpp"
#include "workloads/tick.hpp"

namespace bs = bin_serializer;
using bs::errc;
using bs::MappedFile;
using test_util::hex;
using mode = MappedFile::mode;

namespace {

static_assert(bs::BufferLike<MappedFile>);
static_assert(bs::ContiguousWritableBuffer<MappedFile>);
static_assert(bs::ContiguousReadableBuffer<MappedFile>);
static_assert(bs::ErrorRecordingBuffer<MappedFile>);

// A file name unique to this process and test, removed afterwards.
struct temp_path {
  std::string path;
  explicit temp_path(const char* tag)
      : path("/tmp/bs_mapped_" + std::to_string(::getpid()) + "_" + tag) {}
  ~temp_path() { std::remove(path.c_str()); }
  [[nodiscard]] const char* c_str() const { return path.c_str(); }
  [[nodiscard]] long long file_size() const {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
  }
};

constexpr std::uint64_t million = 1'000'000;

TEST(MappedFile, MillionTickLogRoundTrip) {
  temp_path p("log");
  {
    MappedFile log;
    ASSERT_TRUE(log.open(p.c_str(), mode::create));
    bs::batch_writer out(log);
    for (std::uint64_t i = 0; i < million; ++i) ASSERT_TRUE(out.write(workloads::make_tick(i)));
    out.finish();
    EXPECT_EQ(log.size(), million * sizeof(workloads::Tick));
    EXPECT_GE(log.capacity(), log.size());
    ASSERT_TRUE(log.close());
  }
  // close() trimmed the file to the bytes written.
  EXPECT_EQ(p.file_size(), static_cast<long long>(million * sizeof(workloads::Tick)));

  MappedFile log;
  ASSERT_TRUE(log.open(p.c_str(), mode::read_only));
  ASSERT_EQ(log.size(), million * sizeof(workloads::Tick));
  for (std::uint64_t i = 0; i < million; ++i) {
    workloads::Tick t{};
    ASSERT_TRUE(bs::deserialize(log, t)) << i;
    ASSERT_EQ(t, workloads::make_tick(i)) << i;
  }
  EXPECT_EQ(log.remaining(), 0u);
  workloads::Tick extra{};
  EXPECT_FALSE(bs::deserialize(log, extra));
  EXPECT_EQ(log.last_error(), (bs::error{errc::truncated, million * sizeof(workloads::Tick)}));
}

TEST(MappedFile, GoldenBytesOnDisk) {
  temp_path p("golden");
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::create));
    ASSERT_TRUE(bs::serialize<bs::portable>(f, std::uint32_t{0xdeadbeef})); // any host
    ASSERT_TRUE(bs::serialize<bs::portable>(f, std::string("ok")));
    ASSERT_TRUE(f.sync());
    ASSERT_TRUE(f.close());
  }
  std::FILE* fp = std::fopen(p.c_str(), "rb");
  ASSERT_NE(fp, nullptr);
  unsigned char raw[64];
  const std::size_t n = std::fread(raw, 1, sizeof raw, fp);
  std::fclose(fp);
  EXPECT_EQ(hex(std::span<const std::byte>(reinterpret_cast<const std::byte*>(raw), n)),
            "efbeadde" "0200000000000000" "6f6b");
}

TEST(MappedFile, ReopenAndAppend) {
  temp_path p("append");
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::create));
    for (std::uint64_t i = 0; i < 10; ++i)
      ASSERT_TRUE(bs::serialize(f, workloads::make_car_sequential(i)));
    ASSERT_TRUE(f.close());
  }
  const long long first = p.file_size();
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::append));
    EXPECT_EQ(static_cast<long long>(f.size()), first);
    for (std::uint64_t i = 10; i < 25; ++i)
      ASSERT_TRUE(bs::serialize(f, workloads::make_car_sequential(i)));
    ASSERT_TRUE(f.close());
  }
  EXPECT_GT(p.file_size(), first);
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::read_only));
  for (std::uint64_t i = 0; i < 25; ++i) {
    workloads::Car c;
    ASSERT_TRUE(bs::deserialize(f, c)) << i;
    ASSERT_EQ(c, workloads::make_car_sequential(i));
  }
  EXPECT_EQ(f.remaining(), 0u);
}

// One writer per file: a writable open locks the file before it truncates or
// maps it, so a second writable open (mode::create would cut the file under
// the first one's mapping, a SIGBUS there) fails and changes nothing. Readers
// take no lock; closing releases it; a moved-from file holds none.
TEST(MappedFile, ASecondWritableOpenFailsAndTruncatesNothing) {
  temp_path p("lock");
  MappedFile first;
  ASSERT_TRUE(first.open(p.c_str(), mode::create));
  ASSERT_TRUE(bs::serialize(first, workloads::make_car_sequential(1)));
  const std::size_t written = first.size();
  const long long on_disk = p.file_size(); // the mapping's capacity, zeros after size()
  for (const mode m : {mode::create, mode::append}) {
    MappedFile second;
    errno = 0;
    EXPECT_FALSE(second.open(p.c_str(), m));
    EXPECT_EQ(errno, EWOULDBLOCK);
    EXPECT_EQ(second.last_error().code, errc::io_error);
    EXPECT_FALSE(second.is_open());
    EXPECT_EQ(p.file_size(), on_disk);
  }
  {
    MappedFile reader;
    ASSERT_TRUE(reader.open(p.c_str(), mode::read_only));
    workloads::Car c;
    ASSERT_TRUE(bs::deserialize(reader, c));
    EXPECT_EQ(c, workloads::make_car_sequential(1));
  }
  MappedFile moved(std::move(first)); // the lock goes with the descriptor
  EXPECT_FALSE(MappedFile().open(p.c_str(), mode::append));
  ASSERT_TRUE(bs::serialize(moved, workloads::make_car_sequential(2)));
  ASSERT_TRUE(moved.close());
  MappedFile again;
  ASSERT_TRUE(again.open(p.c_str(), mode::append));
  EXPECT_GT(again.size(), written);
  ASSERT_TRUE(again.seek(written));
  workloads::Car c;
  ASSERT_TRUE(bs::deserialize(again, c));
  EXPECT_EQ(c, workloads::make_car_sequential(2));
}

TEST(MappedFile, TruncatedFileReadsBackFalse) {
  temp_path p("trunc");
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::create));
    ASSERT_TRUE(bs::serialize(f, workloads::make_car_sequential(1)));
    ASSERT_TRUE(bs::serialize(f, workloads::make_car_sequential(2)));
    ASSERT_TRUE(f.close());
  }
  const long long full = p.file_size();
  ASSERT_EQ(::truncate(p.c_str(), full - 5), 0);
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::read_only));
  workloads::Car c;
  ASSERT_TRUE(bs::deserialize(f, c));
  const std::size_t second = f.read_position();
  EXPECT_FALSE(bs::deserialize(f, c));
  EXPECT_EQ(f.last_error().code, errc::truncated);
  EXPECT_GE(f.last_error().offset, second);
  EXPECT_EQ(f.read_position(), second); // a failed call does not move the position
}

TEST(MappedFile, UnwritablePathFails) {
  MappedFile f;
  EXPECT_FALSE(f.open("/nonexistent-dir/x/log.bin", mode::create));
  EXPECT_EQ(f.last_error().code, errc::io_error);
  EXPECT_FALSE(f.is_open());
  EXPECT_FALSE(f.open("/nonexistent-dir/log.bin", mode::read_only));
  EXPECT_FALSE(f.open("/tmp", mode::read_only)); // a directory is not a log
  EXPECT_EQ(f.last_error().code, errc::io_error);
  // A closed MappedFile is an empty, full buffer: writes fail cleanly.
  EXPECT_FALSE(bs::serialize(f, std::uint32_t{1}));
  EXPECT_EQ(f.size(), 0u);
}

TEST(MappedFile, ReadOnlyRefusesWrites) {
  temp_path p("ro");
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::create));
    ASSERT_TRUE(bs::serialize(f, std::uint64_t{7}));
    ASSERT_TRUE(f.close());
  }
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::read_only));
  EXPECT_FALSE(f.writable());
  EXPECT_FALSE(f.write("x", 1));
  EXPECT_EQ(f.last_error().code, errc::io_error);
  f.set_error({});
  EXPECT_FALSE(bs::serialize(f, std::uint64_t{8}));
  EXPECT_EQ(f.size(), 8u); // unchanged
  // The file's own reason, not a generic allocation failure.
  EXPECT_EQ(f.last_error(), (bs::error{errc::io_error, 8}));
  std::uint64_t v = 0;
  ASSERT_TRUE(bs::deserialize(f, v));
  EXPECT_EQ(v, 7u);
  ASSERT_TRUE(f.close());
  EXPECT_EQ(p.file_size(), 8);
}

// clear() (or set_size()) on a read-only file used to leave capacity() at the
// mapping's length, so the next write() stored into the read-only mapping:
// SIGSEGV. Every write path must now fail with io_error and leave the file
// as it was.
TEST(MappedFile, ReadOnlyAfterClearRefusesEveryWrite) {
  temp_path p("ro_clear");
  {
    MappedFile f;
    ASSERT_TRUE(f.open(p.c_str(), mode::create));
    for (std::uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(bs::serialize(f, i));
    ASSERT_TRUE(f.close());
  }
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::read_only));
  EXPECT_EQ(f.capacity(), f.size()); // nothing writable past the bytes
  EXPECT_FALSE(f.reserve(1));
  EXPECT_EQ(f.last_error(), (bs::error{errc::io_error, 32}));
  EXPECT_FALSE(f.reserve(0)); // even a no-op reserve is refused
  f.clear();
  EXPECT_EQ(f.size(), 0u);
  EXPECT_EQ(f.capacity(), 0u);
  for (int round = 0; round < 3; ++round) {
    f.set_error({});
    EXPECT_FALSE(f.write("abcdefgh", 8));
    EXPECT_EQ(f.last_error(), (bs::error{errc::io_error, 0}));
    f.set_error({});
    EXPECT_FALSE(bs::serialize(f, std::uint64_t{9}));
    EXPECT_EQ(f.last_error(), (bs::error{errc::io_error, 0}));
    f.set_error({});
    EXPECT_FALSE(bs::serialize(f, std::string(100, 'x')));
    EXPECT_EQ(f.last_error().code, errc::io_error);
    f.set_error({});
    EXPECT_FALSE(f.reserve(16));
    EXPECT_EQ(f.last_error().code, errc::io_error);
    EXPECT_EQ(f.size(), 0u);
  }
  // set_size() cannot reopen the mapped bytes for writing either.
  f.set_size(0);
  EXPECT_FALSE(f.write("z", 1));
  ASSERT_TRUE(f.close());
  // The file was never touched.
  EXPECT_EQ(p.file_size(), 32);
  MappedFile g;
  ASSERT_TRUE(g.open(p.c_str(), mode::read_only));
  for (std::uint64_t i = 0; i < 4; ++i) {
    std::uint64_t v = 99;
    ASSERT_TRUE(bs::deserialize(g, v));
    EXPECT_EQ(v, i);
  }
}

TEST(MappedFile, ClosedFileRefusesWrites) {
  MappedFile f;
  EXPECT_FALSE(f.reserve(8));
  EXPECT_EQ(f.last_error().code, errc::io_error);
  EXPECT_FALSE(bs::serialize(f, std::uint32_t{1}));
  EXPECT_EQ(f.last_error().code, errc::io_error);
}

TEST(MappedFile, GrowsByRemappingAndKeepsBytes) {
  temp_path p("grow");
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::create));
  EXPECT_EQ(f.capacity(), 0u);
  std::string s(300'000, 'q'); // one value bigger than the first mapping
  ASSERT_TRUE(bs::serialize(f, std::uint8_t{1}));
  ASSERT_TRUE(bs::serialize(f, s));
  EXPECT_GE(f.capacity(), f.size());
  EXPECT_EQ(p.file_size(), static_cast<long long>(f.capacity())); // the file backs the mapping
  std::uint8_t one = 0;
  std::string back;
  ASSERT_TRUE(bs::deserialize(f, one));
  ASSERT_TRUE(bs::deserialize(f, back));
  EXPECT_EQ(one, 1);
  EXPECT_EQ(back, s);
  ASSERT_TRUE(f.close());
  EXPECT_EQ(p.file_size(), static_cast<long long>(1 + 8 + s.size()));
}

TEST(MappedFile, MoveTransfersTheMapping) {
  temp_path p("move");
  MappedFile a;
  ASSERT_TRUE(a.open(p.c_str(), mode::create));
  ASSERT_TRUE(bs::serialize(a, std::uint16_t{0x1234}));
  MappedFile b(std::move(a));
  EXPECT_FALSE(a.is_open()); // NOLINT(bugprone-use-after-move): moved-from is closed
  EXPECT_TRUE(b.is_open());
  ASSERT_TRUE(bs::serialize(b, std::uint16_t{0x5678}));
  MappedFile c;
  c = std::move(b);
  ASSERT_TRUE(c.close());
  EXPECT_EQ(p.file_size(), 4);
  EXPECT_TRUE(c.close()); // closing twice is fine
}

TEST(MappedFile, EmptyFileOpensInEveryMode) {
  temp_path p("empty");
  MappedFile f;
  ASSERT_TRUE(f.open(p.c_str(), mode::create));
  ASSERT_TRUE(f.close());
  ASSERT_TRUE(f.open(p.c_str(), mode::read_only));
  EXPECT_EQ(f.size(), 0u);
  std::uint8_t v = 0;
  EXPECT_FALSE(bs::deserialize(f, v));
  EXPECT_EQ(f.last_error(), (bs::error{errc::truncated, 0}));
  ASSERT_TRUE(f.open(p.c_str(), mode::append)); // open() closes first
  ASSERT_TRUE(bs::serialize(f, std::uint8_t{3}));
  ASSERT_TRUE(f.close());
  EXPECT_EQ(p.file_size(), 1);
}

} // namespace
