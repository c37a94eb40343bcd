// BufferPool / pooled_buffer: reuse, the idle and capacity caps, lease moves,
// statistics, and 8 threads acquiring, serializing, decoding and returning
// leases concurrently (run under ThreadSanitizer by the tsan preset).
#include "test_util.hpp"

#include <bin_serializer/buffer/pool.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "workloads/car.hpp"
#include "workloads/person.hpp"

namespace bs = bin_serializer;
using bs::BufferPool;
using bs::pooled_buffer;
using test_util::hex;

namespace {

static_assert(bs::BufferLike<pooled_buffer>);
static_assert(bs::ContiguousWritableBuffer<pooled_buffer>);
static_assert(bs::ContiguousReadableBuffer<pooled_buffer>);
static_assert(bs::ErrorRecordingBuffer<pooled_buffer>);
static_assert(!std::is_copy_constructible_v<pooled_buffer>);
static_assert(std::is_nothrow_move_constructible_v<pooled_buffer>);

// A lease offers Buffer's optional commit_size() exactly when Buffer does,
// so serialize() commits through a lease as cheaply as through a Buffer.
template <class B>
concept has_commit_size = requires(B& b) { b.commit_size(std::size_t{1}); };
static_assert(has_commit_size<pooled_buffer> == has_commit_size<bs::Buffer>);

TEST(BufferPool, LeaseIsABufferWithGoldenBytes) {
  BufferPool pool;
  auto buf = pool.acquire();
  EXPECT_TRUE(buf.pooled());
  ASSERT_TRUE(bs::serialize<bs::portable>(buf, std::uint32_t{0x0a0b0c0d})); // any host
  EXPECT_EQ(hex(buf), "0d0c0b0a");
  std::uint32_t v = 0;
  ASSERT_TRUE(bs::deserialize<bs::portable>(buf, v));
  EXPECT_EQ(v, 0x0a0b0c0du);
}

TEST(BufferPool, ReturnedBufferIsReusedClearedWithItsStorage) {
  BufferPool pool;
  const std::byte* storage = nullptr;
  {
    auto buf = pool.acquire();
    ASSERT_TRUE(bs::serialize(buf, workloads::make_person()));
    storage = buf.data();
  }
  EXPECT_EQ(pool.stats().idle, 1u);
  auto again = pool.acquire();
  EXPECT_EQ(again.data(), storage); // same allocation, no new one
  EXPECT_EQ(again.size(), 0u);
  EXPECT_EQ(again.read_position(), 0u);
  EXPECT_GE(again.capacity(), 64u);
  const auto s = pool.stats();
  EXPECT_EQ(s.acquired, 2u);
  EXPECT_EQ(s.reused, 1u);
  EXPECT_EQ(s.returned, 1u);
  EXPECT_EQ(s.idle, 0u);
}

TEST(BufferPool, OversizedBuffersAreFreedNotPooled) {
  BufferPool pool({.max_pooled = 4, .max_retained_capacity = 4096});
  {
    auto big = pool.acquire();
    ASSERT_TRUE(bs::serialize(big, std::string(100'000, 'x')));
    auto small = pool.acquire();
    ASSERT_TRUE(bs::serialize(small, std::string(10, 'y')));
  }
  const auto s = pool.stats();
  EXPECT_EQ(s.returned, 1u);
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.idle, 1u);
  auto next = pool.acquire();
  EXPECT_LE(next.capacity(), 4096u);
}

TEST(BufferPool, IdleCountIsCapped) {
  BufferPool pool({.max_pooled = 2});
  {
    std::vector<pooled_buffer> leases;
    for (int i = 0; i < 5; ++i) leases.push_back(pool.acquire());
  }
  const auto s = pool.stats();
  EXPECT_EQ(s.idle, 2u);
  EXPECT_EQ(s.returned, 2u);
  EXPECT_EQ(s.dropped, 3u);
  pool.trim();
  EXPECT_EQ(pool.stats().idle, 0u);
}

TEST(BufferPool, ZeroPooledKeepsNothing) {
  BufferPool pool({.max_pooled = 0});
  {
    auto b = pool.acquire();
  }
  EXPECT_EQ(pool.stats().idle, 0u);
  EXPECT_EQ(pool.stats().dropped, 1u);
}

TEST(BufferPool, InitialCapacityIsReservedInNewBuffers) {
  BufferPool pool({.initial_capacity = 1000});
  auto b = pool.acquire();
  EXPECT_GE(b.capacity(), 1000u);
}

TEST(BufferPool, MovesAndEarlyReleaseReturnOnce) {
  BufferPool pool;
  pooled_buffer a = pool.acquire();
  ASSERT_TRUE(bs::serialize(a, std::uint64_t{5}));
  pooled_buffer b = std::move(a);
  EXPECT_FALSE(a.pooled()); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.size(), 8u);
  pooled_buffer c;
  c = std::move(b);
  c.release();
  EXPECT_FALSE(c.pooled());
  EXPECT_EQ(c.capacity(), 0u);
  c.release(); // a second release does nothing
  EXPECT_EQ(pool.stats().returned, 1u);
  EXPECT_EQ(pool.stats().idle, 1u);
  // Move-assigning over a live lease returns the old buffer first.
  pooled_buffer d = pool.acquire();
  d = pool.acquire();
  EXPECT_EQ(pool.stats().returned, 2u);
}

TEST(BufferPool, EightThreadsShareOnePool) {
  constexpr int threads = 8;
  constexpr int iterations = 10'000;
  BufferPool pool({.max_pooled = 4});
  std::atomic<int> mismatches{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < iterations; ++i) {
        const auto car =
            workloads::make_car_sequential(static_cast<std::uint64_t>(t * iterations + i));
        auto buf = pool.acquire();
        if (buf.size() != 0 || buf.read_position() != 0) ++mismatches;
        workloads::Car back;
        if (!bs::serialize(buf, car) || !bs::deserialize(buf, back) || back != car) ++mismatches;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(mismatches.load(), 0);
  const auto s = pool.stats();
  EXPECT_EQ(s.acquired, std::size_t{threads} * iterations);
  EXPECT_EQ(s.returned + s.dropped, s.acquired);
  EXPECT_LE(s.idle, 4u);
  // Every buffer put back was either handed out again or is still idle.
  EXPECT_EQ(s.reused, s.returned - s.idle);
  EXPECT_GT(s.reused, 0u);
}

} // namespace
