// 32-bit varints of any mix of lengths decoded 64 bytes at a time where the
// CPU has AVX-512 (format/leb128_avx512.hpp, chosen at run time: what
// follows a vector's one- and two-byte blocks; arrays keep the blocks and
// groups), else by the SSE2 blocks and scalar groups. Every test runs on
// both paths where this CPU has both (the run path switched off by hand for
// the second). Reference: one varint at a time, as leb128::load reads it
// (shortest form, at most 5 bytes, a fifth byte of 1 to 15), and vectors and
// arrays of one-field structs, which go element by element: the same bytes,
// result, error, offset, read position and elements kept.
#include "compact_vector_reference.hpp"
#include "std_codec_test_support.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/format/leb128_avx512.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace varint_runs_test {

enum class Id : std::uint32_t { none = 0 };

} // namespace varint_runs_test

namespace {

using namespace bin_serializer;
using namespace std_codec_test;
using namespace compact_vector_reference;
using varint_runs_test::Id;
namespace runs = bin_serializer::detail::leb128::avx512;

// Runs f on the run paths (where this CPU has them) and on the fallback.
template <class F>
void on_each_path(F&& f) {
#if BIN_SERIALIZER_LEB128_AVX512
  const bool has = runs::detect();
  for (const bool on : {true, false}) {
    if (on && !has) continue;
    runs::enabled = on;
    SCOPED_TRACE(on ? "AVX-512 runs" : "fallback");
    f();
    if (::testing::Test::HasFatalFailure()) break;
  }
  runs::enabled = has;
#else
  f();
#endif
}

// n values; lengths: 0 all five bytes, 1 one to five at random, 2 mostly five
// (as random identifiers: 93 % five, the rest two to four), 3 mostly one (a
// value of two to five bytes one time in fifty, as large counts among small).
template <class T>
std::vector<T> values(std::size_t n, int mix, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (auto& x : v) {
    unsigned len = 5;
    if (mix == 1) len = 1 + static_cast<unsigned>(rng() % 5);
    if (mix == 2 && rng() % 100 >= 93) len = 2 + static_cast<unsigned>(rng() % 3);
    if (mix == 3) len = rng() % 50 == 0 ? 2 + static_cast<unsigned>(rng() % 4) : 1;
    x = of_length<T>(len, rng);
  }
  return v;
}

// The same bytes, after the vector's count (one byte: fewer than 128
// elements), as a std::array<T, N> and as one of one-field structs.
template <class T, std::size_t N>
void expect_same_array_reading(const std::vector<std::byte>& vector_bytes) {
  const std::vector<std::byte> bytes(vector_bytes.begin() + 1, vector_bytes.end());
  BufferView va(bytes), vr(bytes);
  std::array<T, N> a{};
  std::array<One<T>, N> ref{};
  const bool ok = deserialize<compact>(va, a);
  ASSERT_EQ(ok, deserialize<compact>(vr, ref)) << to_hex(bytes);
  EXPECT_EQ(va.last_error(), vr.last_error()) << to_hex(bytes);
  EXPECT_EQ(va.read_position(), vr.read_position());
  if (ok) {
    for (std::size_t i = 0; i < N; ++i) EXPECT_EQ(a[i], ref[i].v) << i;
  }
}

// Varints of every length, with bytes that break them here and there: runs
// of continuation bytes (some longer than a window), 0 after a
// continuation, fifth bytes above 15.
std::vector<std::byte> hostile_bytes(std::mt19937_64& rng) {
  std::vector<std::byte> b;
  const std::size_t values = rng() % 90;
  for (std::size_t k = 0; k < values; ++k) {
    std::uint32_t u = of_length<std::uint32_t>(1 + static_cast<unsigned>(rng() % 5), rng);
    std::byte tmp[8];
    std::byte* end = detail::leb128::store(tmp, u);
    b.insert(b.end(), tmp, end);
    switch (rng() % 40) {
    case 0: b.back() = std::byte{0x00}; break; // not the shortest (if it was long)
    case 1: b.back() = static_cast<std::byte>(rng()); break;
    case 2: b.insert(b.end(), rng() % 80, std::byte{0x80}); break; // a long run of continuations
    case 3: b.push_back(std::byte{0x10}); break;
    default: break;
    }
  }
  if (rng() % 4 == 0 && !b.empty()) b.resize(rng() % b.size()); // cut anywhere
  return b;
}

#if BIN_SERIALIZER_LEB128_AVX512

// One varint as leb128::load reads a 32-bit one, written out from the wire
// format's rules: its length, or 0 if refused or cut off by the end.
std::size_t reference_varint(const std::vector<std::byte>& b, std::size_t at, std::uint32_t& v) {
  std::uint64_t u = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    if (at + i >= b.size()) return 0;
    const auto x = static_cast<unsigned>(b[at + i]);
    u |= static_cast<std::uint64_t>(x & 0x7FU) << (7 * i);
    if (x < 0x80) {
      if (i > 0 && x == 0) return 0;  // not the shortest
      if (i == 4 && x > 15) return 0; // beyond 32 bits
      v = static_cast<std::uint32_t>(u);
      return i + 1;
    }
  }
  return 0; // a fifth byte that continues
}

// load_run against reference_varint one at a time: how many, how many bytes,
// the values, and nothing written past the count it returns.
template <class IntCoding, class T>
void expect_run_as_one_at_a_time(const std::vector<std::byte>& b, std::size_t count) {
  constexpr T sentinel = static_cast<T>(0x5A5A5A5A);
  std::vector<T> out(count + 32, sentinel);
  const runs::run got = runs::load_run<IntCoding>(b.data(), b.size(), out.data(), count);
  const std::size_t n = got.count, taken = got.taken;
  std::size_t k = 0, at = 0;
  std::uint32_t u = 0;
  for (; k < count; ++k) {
    const std::size_t len = reference_varint(b, at, u);
    if (len == 0) break;
    ASSERT_EQ(out[k], IntCoding::template decode<T>(u)) << "element " << k << " " << to_hex(b);
    at += len;
  }
  ASSERT_EQ(n, k) << to_hex(b);
  EXPECT_EQ(taken, at) << to_hex(b);
  for (std::size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], sentinel) << i;
}

TEST(CompactVarintRuns, LoadRunAsOneAtATime) {
  if (!runs::detect()) GTEST_SKIP() << "no AVX-512 VBMI2 on this CPU";
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 20000; ++round) {
    const std::vector<std::byte> b = hostile_bytes(rng);
    const std::size_t count = rng() % 100;
    expect_run_as_one_at_a_time<detail::leb128::zigzag, std::int32_t>(b, count);
    expect_run_as_one_at_a_time<detail::leb128::two_complement, std::uint32_t>(b, count);
    if (HasFatalFailure()) return;
  }
}

TEST(CompactVarintRuns, LoadRunEveryRefusalAtEveryPlace) {
  // Twenty valid varints (five bytes, then mixed), and one refused at every
  // byte offset from 0 to 130 (the windows are 56 apart, 64 long).
  if (!runs::detect()) GTEST_SKIP() << "no AVX-512 VBMI2 on this CPU";
  const std::vector<std::vector<std::byte>> bad = {
      from_hex("8000"),         from_hex("ff8000"),       from_hex("ffffff00"),
      from_hex("ffffffff10"),   from_hex("ffffffff7f"),   from_hex("8080808000"),
      from_hex("808080808001"), from_hex("ffffffff8f01"), from_hex("80808080808080808001")};
  std::mt19937_64 rng(7);
  for (const int mix : {0, 1}) {
    for (std::size_t at = 0; at <= 130; ++at) {
      std::vector<std::byte> b;
      while (b.size() < at) {
        std::byte tmp[8];
        const auto u =
            of_length<std::uint32_t>(mix == 0 ? 5U : 1U + static_cast<unsigned>(rng() % 5), rng);
        b.insert(b.end(), tmp, detail::leb128::store(tmp, u));
      }
      for (const auto& x : bad) {
        std::vector<std::byte> c = b;
        c.insert(c.end(), x.begin(), x.end());
        for (int k = 0; k < 30; ++k) c.push_back(std::byte{0x01});
        expect_run_as_one_at_a_time<detail::leb128::zigzag, std::int32_t>(c, 200);
        expect_run_as_one_at_a_time<detail::leb128::two_complement, std::uint32_t>(c, 200);
      }
    }
  }
}

TEST(CompactVarintRuns, LoadRunLongOneByteRuns) {
  // Long runs of one-byte varints (windows whose 64 bytes all end one):
  // runs of 1 to 300 of them after nothing, a five-byte varint or a
  // three-byte one (so that the windows fall anywhere in the run), then a
  // two-byte varint and a refused one; every count from 0 to past the end.
  if (!runs::detect()) GTEST_SKIP() << "no AVX-512 VBMI2 on this CPU";
  std::mt19937_64 rng(64);
  const std::vector<std::vector<std::byte>> leads = {
      {}, from_hex("ffffffff0f"), from_hex("a08d06")};
  for (const auto& lead : leads) {
    for (std::size_t run = 1; run <= 300; run += run < 140 ? 1 : 23) {
      std::vector<std::byte> b = lead;
      for (std::size_t k = 0; k < run; ++k) b.push_back(static_cast<std::byte>(rng() % 128));
      const std::vector<std::byte> tail = from_hex("ff01" "8000");
      b.insert(b.end(), tail.begin(), tail.end());
      const std::size_t total = (lead.empty() ? 0 : 1) + run + 1;
      for (std::size_t count = 0; count <= total + 2; ++count) {
        expect_run_as_one_at_a_time<detail::leb128::zigzag, std::int32_t>(b, count);
        expect_run_as_one_at_a_time<detail::leb128::two_complement, std::uint32_t>(b, count);
        if (HasFatalFailure()) return;
      }
    }
  }
}

#endif

template <class T>
void round_trips(std::mt19937_64& rng) {
  for (const std::size_t n :
       {16u, 17u, 20u, 31u, 32u, 33u, 56u, 57u, 63u, 64u, 65u, 100u, 129u, 1000u, 150000u}) {
    for (const int mix : {0, 1, 2, 3}) {
      SCOPED_TRACE("n " + std::to_string(n) + " mix " + std::to_string(mix));
      const std::vector<T> v = values<T>(n, mix, rng);
      std::vector<std::byte> bytes;
      on_each_path([&] {
        const std::vector<std::byte> b = expect_round_trip<compact>(v);
        if (bytes.empty()) bytes = b;
        ASSERT_EQ(to_hex(b), to_hex(bytes)); // the same bytes on both paths
        for (const std::size_t have : {std::size_t{0}, n / 2, n + 5}) {
          std::vector<T> out = values<T>(have, 1, rng);
          BufferView view(b);
          ASSERT_TRUE(deserialize<compact>(view, out));
          EXPECT_TRUE(out == v);
        }
      });
      if (n <= 1000) {
        ASSERT_EQ(to_hex(bytes), to_hex(encode<compact>(as_ones(v))));
      }
    }
  }
}

TEST(CompactVarintRuns, RoundTripsMixedLengths) {
  std::mt19937_64 rng(32);
  round_trips<std::int32_t>(rng);
  round_trips<std::uint32_t>(rng);
  round_trips<Id>(rng);
}

TEST(CompactVarintRuns, EveryLengthAtEveryIndex) {
  // Five-byte values with one of another length (1 to 4) at each index, as
  // a vector and as an array: bytes and reading as element by element.
  std::mt19937_64 rng(5);
  for (const std::size_t n : {16u, 40u, 70u}) {
    for (std::size_t at = 0; at < n; ++at) {
      for (unsigned len = 1; len <= 4; ++len) {
        std::vector<std::int32_t> v = values<std::int32_t>(n, 0, rng);
        v[at] = of_length<std::int32_t>(len, rng);
        on_each_path([&] {
          const std::vector<std::byte> good = encode<compact>(v);
          ASSERT_EQ(to_hex(good), to_hex(encode<compact>(as_ones(v))));
          expect_same_reading<std::int32_t>(good, {});
          if (n == 40) {
            std::array<std::int32_t, 40> a{};
            std::copy(v.begin(), v.end(), a.begin());
            const std::vector<std::byte> array_bytes = encode<compact>(a);
            ASSERT_EQ(to_hex(array_bytes),
                      to_hex(std::vector<std::byte>(good.begin() + 1, good.end())));
            expect_same_array_reading<std::int32_t, 40>(good);
          }
        });
      }
    }
  }
}

// Mixed lengths with one varint made refused at each index (or the bytes
// cut at every length): the same error, offset and elements kept as element
// by element, for vectors that held fewer, as many and more elements, and
// for arrays.
template <class T>
void same_failures(std::size_t n, int mix, std::mt19937_64& rng) {
  const std::vector<T> v = values<T>(n, mix, rng);
  const std::vector<std::byte> good = encode<compact>(v);
  const std::vector<std::vector<T>> olds = {{}, values<T>(n, 1, rng), values<T>(n + 9, 1, rng)};
  const std::vector<std::vector<std::byte>> refused = {
      from_hex("8000"),       from_hex("ffffff00"),     from_hex("ffffffff10"),
      from_hex("ffffffff7f"), from_hex("808080808001"), from_hex("ffffffff8f01")};
  std::size_t first = 1; // the count's byte
  for (std::size_t at = 0; at < n; ++at) {
    const std::size_t len = encode<compact>(One<T>{v[at]}).size();
    for (const auto& r : refused) {
      std::vector<std::byte> bad(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(first));
      bad.insert(bad.end(), r.begin(), r.end());
      bad.insert(bad.end(), good.begin() + static_cast<std::ptrdiff_t>(first + len), good.end());
      for (const auto& old : olds) expect_same_reading<T>(bad, old);
      if (n == 40) expect_same_array_reading<T, 40>(bad);
    }
    first += len;
  }
  for (std::size_t cut = 0; cut <= good.size(); ++cut) {
    const std::vector<std::byte> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    for (const auto& old : olds) expect_same_reading<T>(b, old);
    if (n == 40 && cut > 0) expect_same_array_reading<T, 40>(b);
  }
}

TEST(CompactVarintRuns, FailuresKeepWhatDecoded) {
  std::mt19937_64 rng(1127);
  for (const std::size_t n : {16u, 17u, 40u, 70u, 127u}) {
    for (const int mix : {0, 1, 2, 3}) {
      SCOPED_TRACE("n " + std::to_string(n) + " mix " + std::to_string(mix));
      on_each_path([&] {
        same_failures<std::int32_t>(n, mix, rng);
        same_failures<std::uint32_t>(n, mix, rng);
      });
    }
  }
}

TEST(CompactVarintRuns, RunThenReaderWhereverTheInputEnds) {
  // After a vector's blocks, the elements whose largest encodings the bytes
  // left hold are read through a run_reader, the others through the
  // caller's reader (std/codec_support.hpp, get_scalars_into). With 0 to
  // 5 x 24 bytes after the vector, that split falls before each of its last
  // 24 elements. A block of sixteen one-byte values, a five-byte value that
  // ends the blocks, then 23 values of one byte (the reader's part then
  // holds a block of sixteen and one-byte groups) or of one to five: as it
  // is, with one element refused at each index, and cut at every length,
  // into an empty vector and one as long: the same as element by element,
  // on each path.
  std::mt19937_64 rng(1130);
  for (const bool ones : {true, false}) {
    std::vector<std::uint32_t> v(16);
    for (auto& x : v) x = of_length<std::uint32_t>(1, rng);
    v.push_back(of_length<std::uint32_t>(5, rng));
    std::vector<std::uint32_t> more = values<std::uint32_t>(23, 1, rng);
    if (ones)
      for (auto& x : more) x = of_length<std::uint32_t>(1, rng);
    v.insert(v.end(), more.begin(), more.end());
    const std::vector<std::byte> good = encode<compact>(v);
    const std::size_t rest_at = 1 + 16; // the count's byte, the block
    const std::vector<std::vector<std::uint32_t>> olds = {{},
                                                          std::vector<std::uint32_t>(v.size(), 7U)};
    on_each_path([&] {
      for (std::size_t room = 0; room <= 5 * 24; ++room) {
        SCOPED_TRACE(std::string(ones ? "ones" : "mixed") + " room " + std::to_string(room));
        std::vector<std::byte> padded = good;
        padded.resize(good.size() + room, std::byte{0x7F});
        for (const auto& old : olds) expect_same_reading<std::uint32_t>(padded, old);
        std::size_t first = rest_at;
        for (std::size_t at = 16; at < v.size(); ++at) {
          const std::size_t len = encode<compact>(One<std::uint32_t>{v[at]}).size();
          for (const auto& refused : {from_hex("8000"), from_hex("ffffffff10")}) {
            std::vector<std::byte> bad(padded.begin(),
                                       padded.begin() + static_cast<std::ptrdiff_t>(first));
            bad.insert(bad.end(), refused.begin(), refused.end());
            bad.insert(bad.end(), padded.begin() + static_cast<std::ptrdiff_t>(first + len),
                       padded.end());
            for (const auto& old : olds) expect_same_reading<std::uint32_t>(bad, old);
          }
          first += len;
        }
      }
      for (std::size_t cut = rest_at; cut < good.size(); ++cut)
        for (const auto& old : olds)
          expect_same_reading<std::uint32_t>(
              std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)),
              old);
    });
  }
}

TEST(CompactVarintRuns, HostileBytes) {
  std::mt19937_64 rng(20261129);
  for (int round = 0; round < 4000; ++round) {
    std::vector<std::byte> b = hostile_bytes(rng);
    const std::size_t count = 16 + rng() % 100; // one byte
    b.insert(b.begin(), static_cast<std::byte>(count));
    const std::vector<std::int32_t> old(rng() % 40, 77);
    on_each_path([&] {
      expect_same_reading<std::int32_t>(b, old);
      expect_same_reading<std::uint32_t>(b, std::vector<std::uint32_t>(old.size(), 5U));
      expect_same_array_reading<std::int32_t, 40>(b);
    });
    if (HasFatalFailure()) return;
  }
}

} // namespace
