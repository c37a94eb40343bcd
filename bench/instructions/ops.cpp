// Instructions per operation, for callgrind: one encode or decode of one
// workload by one library, repeated N times inside a function callgrind
// counts (run_encode / run_decode; scripts/instructions.sh drives it).
//
//   ops WORKLOAD LIBRARY OP N     WORKLOAD: person car monster tick s0 s8 s128
//                                           v64 a64 p64 ids1k o1k vec large tick256
//                                 LIBRARY:  bs (native) bsp (portable) bsc (compact) zpp sp
//                                           hw (hand-written; trivially copyable only)
//                                 OP:       ser dec
//
// zpp_bits and struct_pack are compiled in when their headers are on the
// include path (local checkouts; they are not Debian packages). Every adapter
// is forced inline into the measured loop, so no library pays for a call the
// others do not. The value is checked to round-trip before anything is run.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include <workloads/workloads.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <array>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#if __has_include(<zpp_bits.h>)
#include <zpp_bits.h>
#define OPS_HAVE_ZPP 1
#endif
#if __has_include(<ylt/struct_pack.hpp>)
#include <ylt/struct_pack.hpp>
#define OPS_HAVE_STRUCT_PACK 1
#include <bench/peers/struct_pack_bitset.hpp>
#endif

namespace {

using bytes = std::span<const std::byte>;

template <class T, bin_serializer::options Opts>
struct bs {
  bin_serializer::Buffer buf;
  [[gnu::always_inline]] bytes enc(const T& v) {
    buf.clear();
    if (!serialize<Opts>(buf, v)) return {};
    return buf.bytes();
  }
  [[gnu::always_inline]] bool dec(bytes in, T& v) {
    bin_serializer::BufferView view(in);
    return deserialize<Opts>(view, v);
  }
};

// The hand-written baseline of bench/compare.cpp (trivially copyable values
// only; not in scripts/instructions.sh's columns): a capacity check, a memcpy
// at the write position and the new size; decode checks the length and copies.
template <class T>
struct hw_adapter {
  alignas(16) std::byte data[sizeof(T) + 64];
  std::size_t size = 0;
  [[gnu::always_inline]] bytes enc(const T& v) {
    size = 0;
    if (sizeof v > sizeof data - size) return {};
    std::memcpy(data + size, &v, sizeof v);
    size += sizeof v;
    return {data, size};
  }
  [[gnu::always_inline]] bool dec(bytes in, T& v) {
    if (in.size() < sizeof v) return false;
    std::memcpy(&v, in.data(), sizeof v);
    return true;
  }
};

#ifdef OPS_HAVE_ZPP
template <class T>
struct zpp_adapter {
  std::vector<std::byte> data;
  zpp::bits::out<std::vector<std::byte>> out{data};
  [[gnu::always_inline]] bytes enc(const T& v) {
    out.reset();
    if (zpp::bits::failure(out(v))) return {};
    return {data.data(), out.position()};
  }
  [[gnu::always_inline]] bool dec(bytes in_bytes, T& v) {
    zpp::bits::in in{in_bytes};
    return zpp::bits::success(in(v));
  }
};
#endif

#ifdef OPS_HAVE_STRUCT_PACK
template <class T>
struct sp_adapter {
  std::vector<char> data;
  [[gnu::always_inline]] bytes enc(const T& v) {
    data.clear();
    struct_pack::serialize_to(data, v);
    return {reinterpret_cast<const std::byte*>(data.data()), data.size()};
  }
  [[gnu::always_inline]] bool dec(bytes in, T& v) {
    return !struct_pack::deserialize_to(v, reinterpret_cast<const char*>(in.data()), in.size());
  }
};
#endif

template <class A, class T>
[[gnu::noinline]] void run_encode(A& a, const T& v, int n, std::size_t& sink) {
  for (int i = 0; i < n; ++i) {
    sink += a.enc(v).size();
    asm volatile("" ::: "memory");
  }
}
template <class A, class T>
[[gnu::noinline]] void run_decode(A& a, bytes in, T& out, int n, std::size_t& sink) {
  for (int i = 0; i < n; ++i) {
    sink += a.dec(in, out) ? 1 : 0;
    asm volatile("" ::: "memory");
  }
}

template <class A, class T>
int run(const T& v, const char* op, int n) {
  A a;
  std::size_t sink = 0;
  const bytes b = a.enc(v);
  const std::vector<std::byte> copy(b.begin(), b.end());
  T out{};
  if (copy.empty() || !a.dec(copy, out) || !(out == v)) {
    std::fprintf(stderr, "round trip failed\n");
    return 1;
  }
  if (std::strcmp(op, "ser") == 0)
    run_encode(a, v, n, sink);
  else
    run_decode(a, bytes(copy), out, n, sink);
  std::printf("%zu bytes\n", copy.size());
  return sink == 0 ? 1 : 0;
}

template <class T>
int library(const T& v, const std::string& lib, const char* op, int n) {
  if (lib == "bs") return run<bs<T, bin_serializer::native>>(v, op, n);
  if (lib == "bsp") return run<bs<T, bin_serializer::portable>>(v, op, n);
  if (lib == "bsc") return run<bs<T, bin_serializer::compact>>(v, op, n);
  if constexpr (std::is_trivially_copyable_v<T>)
    if (lib == "hw") return run<hw_adapter<T>>(v, op, n);
#ifdef OPS_HAVE_ZPP
  if (lib == "zpp") return run<zpp_adapter<T>>(v, op, n);
#endif
#ifdef OPS_HAVE_STRUCT_PACK
  if (lib == "sp") return run<sp_adapter<T>>(v, op, n);
#endif
  return 2; // not built in
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s WORKLOAD LIBRARY ser|dec N\n", argv[0]);
    return 2;
  }
  const std::string w = argv[1], lib = argv[2];
  const char* op = argv[3];
  const int n = std::atoi(argv[4]);
  using namespace workloads;
  if (w == "person") return library(make_person(), lib, op, n);
  if (w == "car") return library(make_car_sequential(0), lib, op, n);
  if (w == "monster") return library(make_monsters(), lib, op, n);
  if (w == "tick") return library(make_tick(3), lib, op, n);
  if (w == "s0") return library(std::string(), lib, op, n);
  if (w == "s8") return library(std::string("abcdefgh"), lib, op, n);
  if (w == "s128") return library(std::string(128, 'x'), lib, op, n);
  // 64 small uint32s (one byte each in compact): a std::vector against the
  // std::array of the same elements (format.hpp's group paths, both).
  if (w == "v64" || w == "a64") {
    std::array<std::uint32_t, 64> a{};
    for (std::uint32_t i = 0; i < 64; ++i) a[i] = i;
    if (w == "a64") return library(a, lib, op, n);
    return library(std::vector<std::uint32_t>(a.begin(), a.end()), lib, op, n);
  }
  // 64 uint32s of two bytes each in compact (300 to 16,000: years, ports,
  // prices in cents) in a std::vector.
  if (w == "p64") {
    std::vector<std::uint32_t> v(64);
    for (std::uint32_t i = 0; i < 64; ++i) v[i] = 300 + 250 * i;
    return library(v, lib, op, n);
  }
  // 1000 int32 identifiers drawn as StructPacker's large message draws its
  // 150'000 (workloads/structpacker.hpp): five-byte varints in compact.
  if (w == "ids1k") {
    std::vector<std::int32_t> ids(1000);
    std::uint64_t x = 11;
    for (auto& id : ids) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      id = static_cast<std::int32_t>((x >> 33) % 2'000'000'000);
    }
    return library(ids, lib, op, n);
  }
  // 1024 small counts (one byte each in compact) after one large one (three
  // bytes): the block paths meet a block of mixed lengths first.
  if (w == "o1k") {
    std::vector<std::uint32_t> v(1024, 5);
    v[0] = 100'000;
    return library(v, lib, op, n);
  }
  if (w == "vec") return library(Vec{1.5f, -2.25f, 3.125f}, lib, op, n);
  if (w == "large") return library(make_large_struct(), lib, op, n);
  if (w == "tick256") {
    std::array<Tick, 256> batch{};
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = make_tick(i);
    return library(batch, lib, op, n);
  }
  return 2;
}
