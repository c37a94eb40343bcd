// benchmark_compare: the design document's comparison suite.
//
// Every loop follows the same rules, for the library and for its memcpy
// baselines alike:
//   * the input is re-read from memory each iteration (DoNotOptimize on it), so
//     the compiler cannot hoist the copy out of the loop;
//   * the output object (Buffer, FixedBuffer, byte array, decoded struct) lives
//     in memory: its address escapes once before the loop, as it would for a
//     buffer owned by a session object;
//   * each iteration publishes what a consumer needs, the output bytes'
//     address and length (or the decoded value), through DoNotOptimize, which
//     also acts as a full compiler memory barrier.
// So a baseline does exactly the copy and nothing more, and the library does
// the copy plus whatever bookkeeping its buffer needs, and neither can be
// deleted as dead code.
#include <benchmark/benchmark.h>

#include <bin_serializer/bin_serializer.hpp>
#include <workloads/evolving.hpp>
#include <workloads/workloads.hpp>

#include <cstddef>
#include <cstring>
#include <string>

#include "common/bench_util.hpp"

namespace {

using bin_serializer::Buffer;
using bin_serializer::BufferView;
using bin_serializer::FixedBuffer;
using workloads::LargeStruct;
using workloads::Vec;

constexpr Vec kVec{1.5f, -2.25f, 3.125f};
static_assert(sizeof(Vec) == 12);
static_assert(sizeof(LargeStruct) == 80);

// What every serializing iteration hands to its consumer.
inline void publish(const std::byte* data, std::size_t size) {
  benchmark::DoNotOptimize(data);
  benchmark::DoNotOptimize(size);
}

void set_bytes(benchmark::State& st, std::size_t per_iteration) {
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * per_iteration));
}

// ---------------------------------------------------------------------------
// Serialize: library fast path (Buffer), memcpy baseline, field by field,
// FixedBuffer.
// ---------------------------------------------------------------------------

template <class T>
void serialize_fast(benchmark::State& st, T value) {
  Buffer buf;
  buf.reserve(256); // a warmed, reused buffer: capacity survives clear()
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    buf.clear();
    const bool ok = serialize(buf, value);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

template <class T>
void serialize_memcpy(benchmark::State& st, T value) {
  alignas(16) std::byte out[256];
  bench::escape(&out);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    std::memcpy(out, &value, sizeof value);
    publish(out, sizeof value);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

// The hand-written baseline the project's performance bar is stated against:
// what a programmer writes without a library to put one struct into an output
// buffer: a capacity check, a memcpy at the write position, and the new size.
// BM_*_Memcpy above is the bare copy with no output bookkeeping at all, a
// lower bound no buffer can reach.
struct HandBuffer {
  alignas(16) std::byte data[256];
  std::size_t size = 0;
};

template <class T>
void serialize_handwritten(benchmark::State& st, T value) {
  HandBuffer buf;
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    buf.size = 0;
    const bool ok = sizeof value <= sizeof buf.data - buf.size;
    if (ok) {
      std::memcpy(buf.data + buf.size, &value, sizeof value);
      buf.size += sizeof value;
    }
    benchmark::DoNotOptimize(ok);
    publish(buf.data, buf.size);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

template <class T>
void serialize_fixed(benchmark::State& st, T value) {
  FixedBuffer<256> buf;
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    buf.clear();
    const bool ok = serialize(buf, value);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

// Field by field: one Buffer::write per member, the way a serializer without
// the trivially-copyable fast path walks a struct.
inline bool write_fields(Buffer& b, const Vec& v) {
  return b.write(&v.x, sizeof v.x) && b.write(&v.y, sizeof v.y) && b.write(&v.z, sizeof v.z);
}

inline bool write_fields(Buffer& b, const LargeStruct& s) {
  return b.write(&s.a0, 4) && b.write(&s.a1, 4) && b.write(&s.a2, 4) && b.write(&s.a3, 4) &&
         b.write(&s.a4, 4) && b.write(&s.a5, 4) && b.write(&s.a6, 4) && b.write(&s.a7, 4) &&
         b.write(&s.a8, 4) && b.write(&s.a9, 4) && b.write(&s.f0, 4) && b.write(&s.f1, 4) &&
         b.write(&s.f2, 4) && b.write(&s.f3, 4) && b.write(&s.f4, 4) && b.write(&s.f5, 4) &&
         b.write(&s.f6, 4) && b.write(&s.f7, 4) && b.write(&s.f8, 4) && b.write(&s.f9, 4);
}

template <class T>
void serialize_naive(benchmark::State& st, T value) {
  Buffer buf;
  buf.reserve(256);
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    buf.clear();
    const bool ok = write_fields(buf, value);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

// ---------------------------------------------------------------------------
// Deserialize: bytes that arrived from elsewhere (their length is a run-time
// value) into a struct. Library: BufferView + deserialize (bounds-checked);
// baseline: one memcpy.
// ---------------------------------------------------------------------------

template <class T>
void deserialize_fast(benchmark::State& st, T value) {
  alignas(16) std::byte in[256];
  std::memcpy(in, &value, sizeof value);
  std::size_t length = sizeof value;
  bench::escape(&in);
  T out{};
  bench::escape(&out);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(length);
    BufferView view(in, length);
    const bool ok = deserialize(view, out);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

// Hand-written decode: check the received length, then copy.
template <class T>
void deserialize_handwritten(benchmark::State& st, T value) {
  alignas(16) std::byte in[256];
  std::memcpy(in, &value, sizeof value);
  std::size_t length = sizeof value;
  bench::escape(&in);
  T out{};
  bench::escape(&out);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(length);
    const bool ok = length >= sizeof out;
    if (ok) std::memcpy(&out, in, sizeof out);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

template <class T>
void deserialize_memcpy(benchmark::State& st, T value) {
  alignas(16) std::byte in[256];
  std::memcpy(in, &value, sizeof value);
  std::size_t length = sizeof value;
  bench::escape(&in);
  T out{};
  bench::escape(&out);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(length);
    std::memcpy(&out, in, sizeof out);
    benchmark::DoNotOptimize(out);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(T));
}

void BM_Vec_Fast(benchmark::State& st) { serialize_fast(st, kVec); }
void BM_Vec_Memcpy(benchmark::State& st) { serialize_memcpy(st, kVec); }
void BM_Vec_Handwritten(benchmark::State& st) { serialize_handwritten(st, kVec); }
void BM_Vec_Naive(benchmark::State& st) { serialize_naive(st, kVec); }
void BM_Vec_Fixed(benchmark::State& st) { serialize_fixed(st, kVec); }
void BM_LargeStruct_Fast(benchmark::State& st) {
  serialize_fast(st, workloads::make_large_struct());
}
void BM_LargeStruct_Memcpy(benchmark::State& st) {
  serialize_memcpy(st, workloads::make_large_struct());
}
void BM_LargeStruct_Handwritten(benchmark::State& st) {
  serialize_handwritten(st, workloads::make_large_struct());
}
void BM_LargeStruct_Naive(benchmark::State& st) {
  serialize_naive(st, workloads::make_large_struct());
}
void BM_LargeStruct_Fixed(benchmark::State& st) {
  serialize_fixed(st, workloads::make_large_struct());
}
void BM_Vec_Deserialize(benchmark::State& st) { deserialize_fast(st, kVec); }
void BM_Vec_Deserialize_Memcpy(benchmark::State& st) { deserialize_memcpy(st, kVec); }
void BM_Vec_Deserialize_Handwritten(benchmark::State& st) { deserialize_handwritten(st, kVec); }
void BM_LargeStruct_Deserialize_Handwritten(benchmark::State& st) {
  deserialize_handwritten(st, workloads::make_large_struct());
}
void BM_LargeStruct_Deserialize(benchmark::State& st) {
  deserialize_fast(st, workloads::make_large_struct());
}
void BM_LargeStruct_Deserialize_Memcpy(benchmark::State& st) {
  deserialize_memcpy(st, workloads::make_large_struct());
}

// ---------------------------------------------------------------------------
// std::string payloads of growing size: [u64 length][bytes].
// ---------------------------------------------------------------------------
void BM_StringPayload(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  std::string payload(n, 'x');
  for (std::size_t i = 0; i < n; ++i) payload[i] = static_cast<char>('a' + i % 26);
  Buffer buf;
  buf.reserve(n + 64);
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(payload);
    buf.clear();
    const bool ok = serialize(buf, payload);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(std::uint64_t) + n);
}

// A new Buffer per message: the allocation (and its release) is in the loop.
void BM_Vec_FreshAllocation(benchmark::State& st) {
  Vec value = kVec;
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(value);
    Buffer buf;
    const bool ok = serialize(buf, value);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, sizeof(Vec));
}

} // namespace

BENCHMARK(BM_Vec_Fast);
BENCHMARK(BM_Vec_Memcpy);
BENCHMARK(BM_Vec_Handwritten);
BENCHMARK(BM_Vec_Naive);
BENCHMARK(BM_Vec_Fixed);
BENCHMARK(BM_LargeStruct_Fast);
BENCHMARK(BM_LargeStruct_Memcpy);
BENCHMARK(BM_LargeStruct_Handwritten);
BENCHMARK(BM_LargeStruct_Naive);
BENCHMARK(BM_LargeStruct_Fixed);
BENCHMARK(BM_Vec_Deserialize);
BENCHMARK(BM_Vec_Deserialize_Memcpy);
BENCHMARK(BM_Vec_Deserialize_Handwritten);
BENCHMARK(BM_LargeStruct_Deserialize);
BENCHMARK(BM_LargeStruct_Deserialize_Memcpy);
BENCHMARK(BM_LargeStruct_Deserialize_Handwritten);
BENCHMARK(BM_StringPayload)->Arg(0)->Arg(8)->Arg(128)->Arg(1024)->Arg(4096);
BENCHMARK(BM_Vec_FreshAllocation);

// ---------------------------------------------------------------------------
// Framed messages and evolvable structs against plain serialize/deserialize:
// what the 24-byte header (and its checks) and the evolvable 8-byte prefix
// (and its measuring pass) cost. Native format, reused Buffer / BufferView.
// ---------------------------------------------------------------------------

namespace {

enum class framing { plain, message };

template <framing F, class T>
void schema_serialize(benchmark::State& st, const T& value) {
  Buffer buf;
  buf.reserve(1024);
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    benchmark::DoNotOptimize(&value);
    buf.clear();
    bool ok = false;
    if constexpr (F == framing::message)
      ok = bin_serializer::serialize_message(buf, value);
    else
      ok = serialize(buf, value);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, bin_serializer::serialized_size(value));
}

template <framing F, class T>
void schema_deserialize(benchmark::State& st, const T& value) {
  Buffer src;
  if constexpr (F == framing::message)
    (void)bin_serializer::serialize_message(src, value);
  else
    (void)serialize(src, value);
  T out{};
  bench::escape(&out);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    BufferView view(src.bytes());
    bool ok = false;
    if constexpr (F == framing::message)
      ok = bin_serializer::deserialize_message(view, out);
    else
      ok = deserialize(view, out);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(&out);
  };
  bench::count_allocs(st, op);
  for (auto _ : st) op();
  set_bytes(st, src.size());
}

void BM_Schema_Person_Plain(benchmark::State& st) {
  schema_serialize<framing::plain>(st, workloads::make_person());
}
void BM_Schema_Person_Message(benchmark::State& st) {
  schema_serialize<framing::message>(st, workloads::make_person());
}
void BM_Schema_Person_Evolvable(benchmark::State& st) {
  schema_serialize<framing::plain>(st, workloads::make_profile_v2());
}
void BM_Schema_Tick_Plain(benchmark::State& st) {
  schema_serialize<framing::plain>(st, workloads::make_tick(7));
}
void BM_Schema_Tick_Message(benchmark::State& st) {
  schema_serialize<framing::message>(st, workloads::make_tick(7));
}
void BM_Schema_Person_Plain_Deserialize(benchmark::State& st) {
  schema_deserialize<framing::plain>(st, workloads::make_person());
}
void BM_Schema_Person_Message_Deserialize(benchmark::State& st) {
  schema_deserialize<framing::message>(st, workloads::make_person());
}
void BM_Schema_Person_Evolvable_Deserialize(benchmark::State& st) {
  schema_deserialize<framing::plain>(st, workloads::make_profile_v2());
}
void BM_Schema_Tick_Plain_Deserialize(benchmark::State& st) {
  schema_deserialize<framing::plain>(st, workloads::make_tick(7));
}
void BM_Schema_Tick_Message_Deserialize(benchmark::State& st) {
  schema_deserialize<framing::message>(st, workloads::make_tick(7));
}

} // namespace

BENCHMARK(BM_Schema_Person_Plain);
BENCHMARK(BM_Schema_Person_Message);
BENCHMARK(BM_Schema_Person_Evolvable);
BENCHMARK(BM_Schema_Tick_Plain);
BENCHMARK(BM_Schema_Tick_Message);
BENCHMARK(BM_Schema_Person_Plain_Deserialize);
BENCHMARK(BM_Schema_Person_Message_Deserialize);
BENCHMARK(BM_Schema_Person_Evolvable_Deserialize);
BENCHMARK(BM_Schema_Tick_Plain_Deserialize);
BENCHMARK(BM_Schema_Tick_Message_Deserialize);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::add_build_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
