// Hostile lengths and counts are refused BEFORE anything is allocated.
//
// This executable replaces the global operator new / delete (every form,
// each new paired with its delete, malloc/free underneath) with a recorder:
// inside a `recording` scope every allocation's size is kept, so a test can
// assert "no allocation at all" or "no allocation larger than the input
// justifies". The recorder can also make nothrow allocations fail on demand,
// which is how Buffer allocates: the serialize-side tests use that.
// (Before the includes: GCC attributes these middle-end warnings to the
// library header lines.) GCC 12 -O2 warns inside contiguous_writer::write_bytes for FixedBuffers that
// statically cannot hold a value (see test_util.hpp); not used here, but the
// Buffer tests instantiate the same writer.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <new>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

// ---------------------------------------------------------------------------
// The recording allocator
// ---------------------------------------------------------------------------
namespace rec {

constexpr std::size_t max_records = 1 << 16;

struct state {
  std::atomic<bool> armed{false};
  std::atomic<std::size_t> count{0};
  std::atomic<std::size_t> total{0};
  std::atomic<std::size_t> largest{0};
  std::atomic<std::size_t> fail_nothrow{0};     // nothrow allocations still to fail
  std::atomic<std::size_t> nothrow_failures{0}; // how many were made to fail
  std::size_t sizes[max_records];
};

state& get() {
  static state s;
  return s;
}

void note(std::size_t n) noexcept {
  state& s = get();
  if (!s.armed.load(std::memory_order_relaxed)) return;
  const std::size_t i = s.count.fetch_add(1);
  if (i < max_records) s.sizes[i] = n;
  s.total.fetch_add(n);
  std::size_t prev = s.largest.load();
  while (n > prev && !s.largest.compare_exchange_weak(prev, n)) {
  }
}

void* allocate(std::size_t n) noexcept {
  note(n);
  return std::malloc(n == 0 ? 1 : n);
}

void* allocate_nothrow(std::size_t n) noexcept {
  state& s = get();
  std::size_t pending = s.fail_nothrow.load();
  while (pending != 0 && !s.fail_nothrow.compare_exchange_weak(pending, pending - 1)) {
  }
  note(n);
  if (pending != 0) {
    s.nothrow_failures.fetch_add(1);
    return nullptr;
  }
  return std::malloc(n == 0 ? 1 : n);
}

void* allocate_aligned(std::size_t n, std::align_val_t align) noexcept {
  note(n);
  void* p = nullptr;
  const auto a = std::max(static_cast<std::size_t>(align), sizeof(void*));
  return posix_memalign(&p, a, n == 0 ? 1 : n) == 0 ? p : nullptr;
}

[[noreturn]] void out_of_memory() {
#if defined(__cpp_exceptions)
  throw std::bad_alloc();
#else
  std::abort();
#endif
}

// Records every allocation made during its lifetime.
class recording {
public:
  recording() noexcept {
    state& s = get();
    s.count = 0;
    s.total = 0;
    s.largest = 0;
    s.armed = true;
  }
  ~recording() { stop(); }
  recording(const recording&) = delete;
  recording& operator=(const recording&) = delete;

  void stop() noexcept { get().armed = false; }
  [[nodiscard]] std::size_t count() const noexcept { return get().count.load(); }
  [[nodiscard]] std::size_t total() const noexcept { return get().total.load(); }
  [[nodiscard]] std::size_t largest() const noexcept { return get().largest.load(); }
};

// The next n nothrow allocations fail (0: none).
void fail_next_nothrow(std::size_t n) noexcept {
  get().fail_nothrow = n;
  get().nothrow_failures = 0;
}

} // namespace rec

[[gnu::noinline]] void* operator new(std::size_t n) {
  if (void* p = rec::allocate(n)) return p;
  rec::out_of_memory();
}
[[gnu::noinline]] void* operator new[](std::size_t n) {
  if (void* p = rec::allocate(n)) return p;
  rec::out_of_memory();
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return rec::allocate_nothrow(n);
}
[[gnu::noinline]] void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return rec::allocate_nothrow(n);
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = rec::allocate_aligned(n, a)) return p;
  rec::out_of_memory();
}
[[gnu::noinline]] void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = rec::allocate_aligned(n, a)) return p;
  rec::out_of_memory();
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a,
                                     const std::nothrow_t&) noexcept {
  return rec::allocate_aligned(n, a);
}
[[gnu::noinline]] void* operator new[](std::size_t n, std::align_val_t a,
                                       const std::nothrow_t&) noexcept {
  return rec::allocate_aligned(n, a);
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t,
                                         const std::nothrow_t&) noexcept {
  std::free(p);
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------
namespace {

namespace bs = bin_serializer;
using bs::errc;
using bytes = std::vector<std::byte>;

bytes u64(std::uint64_t v) {
  bytes out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}
bytes i32(std::int32_t v) {
  bytes out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}
bytes filler(std::size_t n, unsigned char value = 0) { return bytes(n, std::byte{value}); }
bytes cat(std::initializer_list<bytes> parts) {
  bytes out;
  for (const bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

template <bs::options Opts = bs::native, class T>
bytes encode(const T& value) {
  bs::Buffer b;
  EXPECT_TRUE(bs::serialize<Opts>(b, value));
  return bytes(b.bytes().begin(), b.bytes().end());
}

using test_util::ReadOnlySource;

// The outcome of one deserialize() from a BufferView, with every allocation
// made during the call.
struct outcome {
  bool ok = false;
  bs::error error{};
  std::size_t position = 0;
  std::size_t allocations = 0;
  std::size_t largest = 0;
  std::size_t total = 0;
};

template <bs::options Opts = bs::native, class T>
outcome decode(const bytes& input, T& target) {
  bs::BufferView view(input);
  outcome o;
  {
    rec::recording r;
    o.ok = bs::deserialize<Opts>(view, target);
    r.stop();
    o.allocations = r.count();
    o.largest = r.largest();
    o.total = r.total();
  }
  o.error = view.last_error();
  o.position = view.read_position();
  return o;
}

// Decodes `input` as T (fresh target) in both the default and the untrusted
// mode; expects failure with `code` at `offset` and no allocation at all.
template <class T>
void expect_refused_without_allocating(const bytes& input, errc code, std::size_t offset) {
  {
    T target{};
    const outcome o = decode<bs::native>(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.code, code);
    EXPECT_EQ(o.error.offset, offset);
    EXPECT_EQ(o.position, 0u);
    EXPECT_EQ(o.allocations, 0u) << "largest " << o.largest;
  }
  {
    T target{};
    const outcome o = decode<bs::untrusted>(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.code, code);
    EXPECT_EQ(o.allocations, 0u) << "largest " << o.largest;
  }
}

constexpr std::uint64_t huge = std::uint64_t{1} << 62;

} // namespace

// ---------------------------------------------------------------------------
// The instrument itself: it does see the decoder's allocations
// ---------------------------------------------------------------------------

TEST(HostileAlloc, RecorderSeesTheDecodersAllocations) {
  const std::vector<std::int32_t> value(100, 5);
  std::vector<std::int32_t> target;
  const outcome o = decode(encode(value), target);
  ASSERT_TRUE(o.ok);
  EXPECT_EQ(o.allocations, 1u);
  EXPECT_EQ(o.largest, 100 * sizeof(std::int32_t));

  std::map<std::string, std::string> m;
  const outcome om = decode(encode(std::map<std::string, std::string>{{"a", "b"}, {"c", "d"}}), m);
  ASSERT_TRUE(om.ok);
  EXPECT_EQ(om.allocations, 2u); // two tree nodes (short strings are inline)
}

// ---------------------------------------------------------------------------
// Huge lengths and counts, contiguous input: refused, nothing allocated
// ---------------------------------------------------------------------------

TEST(HostileAlloc, StringLength2p63) {
  const bytes input = cat({u64(std::uint64_t{1} << 63), filler(3, 'a')});
  expect_refused_without_allocating<std::string>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::u16string>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::u32string>(input, errc::truncated, 0);
}

TEST(HostileAlloc, StringLengthAllOnes) {
  expect_refused_without_allocating<std::string>(cat({u64(~std::uint64_t{0}), filler(8)}),
                                                 errc::truncated, 0);
}

TEST(HostileAlloc, StringLengthOneMoreThanTheInput) {
  expect_refused_without_allocating<std::string>(cat({u64(9), filler(8, 'x')}), errc::truncated, 0);
}

TEST(HostileAlloc, VectorIntCount2p40With16BytesOfInput) {
  const bytes input = cat({u64(std::uint64_t{1} << 40), filler(8)});
  ASSERT_EQ(input.size(), 16u);
  expect_refused_without_allocating<std::vector<std::int32_t>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::vector<double>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::vector<bool>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::vector<std::string>>(input, errc::truncated, 0);
  // Elements whose minimum encoding is one byte still need one byte each.
  expect_refused_without_allocating<std::vector<std::optional<std::string>>>(input, errc::truncated,
                                                                             0);
  expect_refused_without_allocating<std::vector<std::uint8_t>>(input, errc::truncated, 0);
}

TEST(HostileAlloc, MapAndSetCountsHuge) {
  const bytes input = cat({u64(huge), filler(32)});
  expect_refused_without_allocating<std::map<std::string, std::vector<std::int32_t>>>(
      input, errc::truncated, 0);
  expect_refused_without_allocating<std::multimap<std::int32_t, std::int32_t>>(input,
                                                                               errc::truncated, 0);
  expect_refused_without_allocating<std::unordered_map<std::uint32_t, std::string>>(
      input, errc::truncated, 0);
  expect_refused_without_allocating<std::set<std::string>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::multiset<std::uint8_t>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::unordered_set<std::int64_t>>(input, errc::truncated, 0);
}

TEST(HostileAlloc, ListDequeForwardListCountsHuge) {
  const bytes input = cat({u64(huge), filler(16)});
  expect_refused_without_allocating<std::list<std::int32_t>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::forward_list<std::string>>(input, errc::truncated, 0);
  // A std::deque allocates its map and first block when constructed (before
  // the recording starts), never for the count.
  expect_refused_without_allocating<std::deque<std::uint16_t>>(input, errc::truncated, 0);
  expect_refused_without_allocating<std::list<std::deque<std::int32_t>>>(input, errc::truncated, 0);
}

TEST(HostileAlloc, OptionalOfHugeString) {
  // [flag 1][u64 2^62]["abc"]
  const bytes input = cat({filler(1, 1), u64(huge), filler(3, 'a')});
  std::optional<std::string> target;
  const outcome o = decode(input, target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::truncated);
  EXPECT_EQ(o.error.offset, 1u);
  // Engaging the optional allocates nothing (an empty std::string is inline).
  EXPECT_EQ(o.allocations, 0u);
}

TEST(HostileAlloc, NestedVectorHugeInnerCount) {
  // vector<vector<int>>: outer count 1 (honest), inner count 2^40.
  const bytes input = cat({u64(1), u64(std::uint64_t{1} << 40), filler(8)});
  std::vector<std::vector<std::int32_t>> target;
  const outcome o = decode(input, target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::truncated);
  EXPECT_EQ(o.error.offset, 8u);
  EXPECT_EQ(o.position, 0u);
  // Only the outer vector's one element may have been allocated.
  EXPECT_LE(o.allocations, 1u);
  EXPECT_LE(o.largest, sizeof(std::vector<std::int32_t>));
  // The target is valid and reusable.
  const std::vector<std::vector<std::int32_t>> good{{1, 2}, {}};
  const bytes valid = encode(good);
  bs::BufferView view(valid);
  ASSERT_TRUE(bs::deserialize(view, target));
  EXPECT_EQ(target, good);
}

TEST(HostileAlloc, EveryAllocationBoundedByInputForHonestPrefixOfHostileElements) {
  // A vector<string> whose count is honest (100 strings fit at 8 bytes each)
  // but whose strings all announce 2^62 characters: the reservation is for
  // at most as many strings as the input could hold, and no string allocates.
  bytes input = u64(100);
  for (int i = 0; i < 100; ++i) input = cat({input, u64(huge)});
  std::vector<std::string> target;
  const outcome o = decode(input, target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::truncated);
  EXPECT_EQ(o.error.offset, 8u);
  EXPECT_LE(o.allocations, 1u);
  EXPECT_LE(o.largest, 100 * sizeof(std::string));
}

// ---------------------------------------------------------------------------
// Stream reader (a buffer with only read()): memory follows the bytes received
// ---------------------------------------------------------------------------

template <class T>
outcome decode_stream(const bytes& input, T& target, std::size_t* consumed = nullptr) {
  ReadOnlySource src(input);
  outcome o;
  {
    rec::recording r;
    o.ok = bs::deserialize(src, target);
    r.stop();
    o.allocations = r.count();
    o.largest = r.largest();
    o.total = r.total();
  }
  if (consumed != nullptr) *consumed = src.consumed();
  return o;
}

constexpr std::size_t chunk = bs::detail::stream_chunk_bytes;

TEST(HostileAllocStream, HugeStringPrefixAllocatesOneChunkAtMost) {
  const bytes input = cat({u64(huge), filler(100, 'x')});
  std::string target;
  const outcome o = decode_stream(input, target);
  EXPECT_FALSE(o.ok);
  // One chunk (plus the terminator) at most, whatever the prefix says.
  EXPECT_LE(o.largest, chunk + 1);
  EXPECT_LE(o.total, chunk + 1);
}

TEST(HostileAllocStream, MemoryFollowsTheBytesReceived) {
  // 1 MiB announced, 200 KiB delivered: growth stops at the end of the input.
  const std::size_t delivered = 200 * 1024;
  const bytes input = cat({u64(1 << 20), filler(delivered, 'y')});
  std::string target;
  const outcome o = decode_stream(input, target);
  EXPECT_FALSE(o.ok);
  // The string grows a chunk at a time and at most doubles: no block is
  // larger than twice what has arrived plus one chunk.
  EXPECT_LE(o.largest, 2 * delivered + chunk + 1);
  EXPECT_LT(o.largest, std::size_t{1} << 20);
}

TEST(HostileAllocStream, HugeVectorCounts) {
  const bytes input = cat({u64(huge), filler(64)});
  {
    std::vector<std::int32_t> target;
    const outcome o = decode_stream(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_LE(o.largest, chunk);
  }
  {
    std::vector<std::string> target;
    const outcome o = decode_stream(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_LE(o.largest, chunk);
  }
  {
    std::vector<bool> target;
    const outcome o = decode_stream(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_LE(o.largest, chunk);
  }
  {
    std::map<std::string, std::string> target;
    const outcome o = decode_stream(input, target);
    EXPECT_FALSE(o.ok);
    EXPECT_LE(o.largest, 256u); // one node at a time
  }
}

TEST(HostileAllocStream, HonestMessageDecodes) {
  const std::vector<std::string> value{"alpha", std::string(100000, 'b'), ""};
  const bytes input = encode(value);
  std::vector<std::string> target;
  std::size_t consumed = 0;
  const outcome o = decode_stream(input, target, &consumed);
  ASSERT_TRUE(o.ok);
  EXPECT_EQ(target, value);
  EXPECT_EQ(consumed, input.size());
}

// ---------------------------------------------------------------------------
// Configured limits: limit_exceeded, before any allocation
// ---------------------------------------------------------------------------

TEST(HostileAllocLimits, MaxElementCount) {
  constexpr bs::options opts{.max_element_count = 4};
  const bytes five = encode(std::vector<std::int32_t>{1, 2, 3, 4, 5});
  std::vector<std::int32_t> target;
  const outcome o = decode<opts>(five, target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::limit_exceeded);
  EXPECT_EQ(o.error.offset, 0u);
  EXPECT_EQ(o.allocations, 0u);

  const bytes four = encode(std::vector<std::int32_t>{1, 2, 3, 4});
  const outcome at_limit = decode<opts>(four, target);
  EXPECT_TRUE(at_limit.ok);
  EXPECT_EQ(target.size(), 4u);

  // Also for the other containers, and a huge count is limit_exceeded (not
  // truncated): the limit is checked first.
  const bytes many = cat({u64(huge), filler(64)});
  {
    std::map<std::string, std::int32_t> m;
    const outcome om = decode<opts>(many, m);
    EXPECT_EQ(om.error.code, errc::limit_exceeded);
    EXPECT_EQ(om.allocations, 0u);
  }
  {
    std::list<std::string> l;
    const outcome ol = decode<opts>(encode(std::list<std::string>{"a", "b", "c", "d", "e"}), l);
    EXPECT_EQ(ol.error.code, errc::limit_exceeded);
    EXPECT_EQ(ol.allocations, 0u);
  }
  {
    std::set<std::int32_t> s;
    const outcome os = decode<opts>(encode(std::set<std::int32_t>{1, 2, 3, 4, 5}), s);
    EXPECT_EQ(os.error.code, errc::limit_exceeded);
    EXPECT_EQ(os.allocations, 0u);
  }
}

TEST(HostileAllocLimits, MaxStringLength) {
  constexpr bs::options opts{.max_string_length = 4};
  std::string target;
  const outcome o = decode<opts>(encode(std::string("hello")), target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::limit_exceeded);
  EXPECT_EQ(o.error.offset, 0u);
  EXPECT_EQ(o.allocations, 0u);

  const outcome at_limit = decode<opts>(encode(std::string("four")), target);
  EXPECT_TRUE(at_limit.ok);
  EXPECT_EQ(target, "four");

  // The string inside a struct: the offset is the string's prefix.
  std::vector<std::string> v;
  const outcome nested = decode<opts>(encode(std::vector<std::string>{"ok", "too long"}), v);
  EXPECT_EQ(nested.error.code, errc::limit_exceeded);
  EXPECT_EQ(nested.error.offset, 8u + 8u + 2u);
}

namespace {
struct Node {
  std::int32_t v{};
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

// root -> child -> ... : n nodes, n nested vectors.
Node chain(std::size_t n) {
  Node root{0, {}};
  Node* cur = &root;
  for (std::size_t i = 1; i < n; ++i) {
    cur->children.push_back({static_cast<std::int32_t>(i), {}});
    cur = &cur->children.back();
  }
  return root;
}
} // namespace

TEST(HostileAllocLimits, DepthBoundaryAtTheDefault100) {
  static_assert(bs::native.max_depth == 100 && bs::untrusted.max_depth == 100);
  const Node ok_tree = chain(100);
  Node target;
  const outcome ok = decode(encode(ok_tree), target);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(target, ok_tree);

  // Node i starts at 12 * i: [int32 v][u64 count][children...]. The 101st
  // vector is node 100's children, whose count is at 12 * 100 + 4.
  const bytes deep = encode(chain(101));
  Node deep_target;
  const outcome too_deep = decode(deep, deep_target);
  EXPECT_FALSE(too_deep.ok);
  EXPECT_EQ(too_deep.error.code, errc::limit_exceeded);
  EXPECT_EQ(too_deep.error.offset, 12u * 100u + 4u);
  EXPECT_EQ(too_deep.position, 0u);

  Node untrusted_target;
  const outcome untrusted = decode<bs::untrusted>(deep, untrusted_target);
  EXPECT_EQ(untrusted.error.code, errc::limit_exceeded);

  // The trusted preset has no depth limit: its own output of any depth decodes.
  Node trusted_target;
  EXPECT_TRUE(decode<bs::trusted>(deep, trusted_target).ok);
}

TEST(HostileAllocLimits, ConfiguredDepth) {
  constexpr bs::options opts{.max_depth = 5};
  Node target;
  EXPECT_TRUE(decode<opts>(encode(chain(5)), target).ok);
  const outcome o = decode<opts>(encode(chain(6)), target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::limit_exceeded);
  EXPECT_EQ(o.error.offset, 12u * 5u + 4u);
}

TEST(HostileAllocLimits, HostileDeepNestingStopsAtTheLimit) {
  // 100000 levels of "one child" claimed, without the bytes to close them: the
  // decoder must stop at level 100, not recurse 100000 deep (stack) or
  // allocate 100000 vectors.
  bytes input;
  input.reserve(100000 * 12);
  for (int i = 0; i < 100000; ++i) {
    const bytes v = i32(i);
    const bytes count = u64(1);
    input.insert(input.end(), v.begin(), v.end());
    input.insert(input.end(), count.begin(), count.end());
  }
  Node target;
  const outcome o = decode(input, target);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.error.code, errc::limit_exceeded);
  EXPECT_EQ(o.error.offset, 12u * 100u + 4u);
  EXPECT_LE(o.allocations, 100u);
  EXPECT_LE(o.largest, sizeof(Node));
}

TEST(HostileAllocLimits, MaxTotalBytesBoundary) {
  const bytes msg = encode(std::string("hello")); // 13 bytes
  ASSERT_EQ(msg.size(), 13u);
  const bytes with_tail = cat({msg, filler(20, 'z')});
  {
    constexpr bs::options opts{.max_total_bytes = 13};
    std::string s;
    const outcome o = decode<opts>(with_tail, s);
    EXPECT_TRUE(o.ok);
    EXPECT_EQ(s, "hello");
    EXPECT_EQ(o.position, 13u);
  }
  {
    constexpr bs::options opts{.max_total_bytes = 12};
    std::string s;
    const outcome o = decode<opts>(with_tail, s);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.code, errc::limit_exceeded);
    EXPECT_EQ(o.error.offset, 0u);
    EXPECT_EQ(o.position, 0u);
    EXPECT_EQ(o.allocations, 0u);
  }
  {
    // A count that fits the input but not the budget.
    constexpr bs::options opts{.max_total_bytes = 32};
    std::vector<std::int32_t> v;
    const outcome o = decode<opts>(encode(std::vector<std::int32_t>(7, 1)), v); // 36 bytes
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error.code, errc::limit_exceeded);
    EXPECT_EQ(o.allocations, 0u);
    EXPECT_TRUE(decode<opts>(encode(std::vector<std::int32_t>(6, 1)), v).ok); // 32 bytes
  }
  {
    // The same boundary through the stream reader.
    constexpr bs::options opts{.max_total_bytes = 13};
    std::string s;
    ReadOnlySource ok_src(with_tail);
    EXPECT_TRUE(bs::deserialize<opts>(ok_src, s));
    EXPECT_EQ(ok_src.consumed(), 13u);
    constexpr bs::options tight{.max_total_bytes = 12};
    ReadOnlySource bad_src(with_tail);
    EXPECT_FALSE(bs::deserialize<tight>(bad_src, s));
  }
}

namespace {
// read() plus error recording, no size and no data(): the stream reader.
class RecordingSource {
public:
  explicit RecordingSource(std::span<const std::byte> b) noexcept : src_(b) {}
  bool read(void* dst, std::size_t n) noexcept {
    if (src_.read(dst, n)) return true;
    err_ = {errc::truncated, src_.consumed()};
    return false;
  }
  [[nodiscard]] bs::error last_error() const noexcept { return err_; }
  void set_error(bs::error e) noexcept { err_ = e; }

private:
  ReadOnlySource src_;
  bs::error err_{};
};
} // namespace

TEST(HostileAllocLimits, MaxTotalBytesReasonIsTheSameForEveryReader) {
  // 13 bytes of message followed by more input, decoded under a 12-byte
  // budget: the input is not truncated, the budget is exceeded. A BufferView
  // says limit_exceeded; so must a stream source.
  const bytes input = cat({encode(std::string("hello")), filler(20, 'z')});
  constexpr bs::options opts{.max_total_bytes = 12};
  std::string s;
  bs::BufferView view(input);
  EXPECT_FALSE(bs::deserialize<opts>(view, s));
  EXPECT_EQ(view.last_error().code, errc::limit_exceeded);

  RecordingSource src(input);
  EXPECT_FALSE(bs::deserialize<opts>(src, s));
  EXPECT_EQ(src.last_error().code, errc::limit_exceeded)
      << "stream_reader::read_length reports truncated when the count does not fit "
         "the max_total_bytes budget";
}

// ---------------------------------------------------------------------------
// Serialize side: a Buffer whose allocation fails is left exactly as it was
// ---------------------------------------------------------------------------

namespace {
struct Snapshot {
  const std::byte* data;
  std::size_t size;
  std::size_t capacity;
  std::size_t read_position;
  bytes content;
};
Snapshot snapshot(const bs::Buffer& b) {
  return {b.data(), b.size(), b.capacity(), b.read_position(),
          bytes(b.bytes().begin(), b.bytes().end())};
}
void expect_unchanged(const bs::Buffer& b, const Snapshot& s) {
  EXPECT_EQ(b.data(), s.data);
  EXPECT_EQ(b.size(), s.size);
  EXPECT_EQ(b.capacity(), s.capacity);
  EXPECT_EQ(b.read_position(), s.read_position);
  EXPECT_EQ(bytes(b.bytes().begin(), b.bytes().end()), s.content);
}

struct Big {
  std::string name;
  std::vector<std::int64_t> values;
  std::map<std::string, std::string> tags;
  bool operator==(const Big&) const = default;
};
Big make_big() {
  Big b{std::string(300, 'n'), std::vector<std::int64_t>(100, 7), {}};
  b.tags = {{"k1", "v1"}, {"k2", std::string(50, 'v')}};
  return b;
}
} // namespace

TEST(HostileAllocSerialize, BufferAllocationFailureLeavesBufferUnchanged) {
  bs::Buffer buffer;
  ASSERT_TRUE(bs::serialize(buffer, std::string("previous message")));
  std::string skip;
  ASSERT_TRUE(bs::deserialize(buffer, skip)); // a read position to preserve
  const Snapshot before = snapshot(buffer);
  const Big big = make_big();
  ASSERT_GT(bs::serialized_size(big), buffer.capacity() - buffer.size());

  rec::fail_next_nothrow(1000); // every growth attempt fails
  const bool ok = bs::serialize(buffer, big);
  const std::size_t failures = rec::get().nothrow_failures.load();
  rec::fail_next_nothrow(0);

  EXPECT_FALSE(ok);
  EXPECT_GE(failures, 1u);
  EXPECT_EQ(buffer.last_error().code, errc::out_of_memory);
  EXPECT_EQ(buffer.last_error().offset, before.size);
  expect_unchanged(buffer, before);

  // The buffer still works.
  ASSERT_TRUE(bs::serialize(buffer, big));
  Big back;
  ASSERT_TRUE(bs::deserialize(buffer, back));
  EXPECT_EQ(back, big);
}

TEST(HostileAllocSerialize, FailureOfEachAllocationInTurn) {
  // Fail the first k nothrow allocations for k = 1, 2, ...: the call either
  // succeeds with the right bytes (a fallback allocation worked) or fails
  // with the buffer untouched; never anything in between.
  const Big big = make_big();
  bs::Buffer reference;
  ASSERT_TRUE(bs::serialize(reference, std::uint32_t{0xABCDEF01}));
  ASSERT_TRUE(bs::serialize(reference, big));
  const bytes expected(reference.bytes().begin(), reference.bytes().end());

  for (std::size_t k = 1; k <= 4; ++k) {
    bs::Buffer buffer;
    ASSERT_TRUE(bs::serialize(buffer, std::uint32_t{0xABCDEF01}));
    const Snapshot before = snapshot(buffer);
    rec::fail_next_nothrow(k);
    const bool ok = bs::serialize(buffer, big);
    rec::fail_next_nothrow(0);
    if (ok) {
      EXPECT_EQ(bytes(buffer.bytes().begin(), buffer.bytes().end()), expected) << "k=" << k;
    } else {
      EXPECT_EQ(buffer.last_error().code, errc::out_of_memory) << "k=" << k;
      expect_unchanged(buffer, before);
    }
  }
}

TEST(HostileAllocSerialize, EmptyBufferAllocationFailure) {
  bs::Buffer buffer;
  rec::fail_next_nothrow(1000);
  const bool ok = bs::serialize(buffer, std::string(100, 'x'));
  rec::fail_next_nothrow(0);
  EXPECT_FALSE(ok);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.capacity(), 0u);
  EXPECT_EQ(buffer.last_error().code, errc::out_of_memory);
}
