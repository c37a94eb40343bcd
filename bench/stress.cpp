// benchmark_stress: sustained Tick streams (the design document's stress suite).
//
//   BM_Tick                 1M ticks appended to one reused Buffer per iteration
//   BM_Tick_Naive           the same, field by field (one Buffer::write per member)
//   BM_Tick_FixedBuffer     a 256-tick batch into FixedBuffer<256 * sizeof(Tick)>
//                           through one batch_writer (one cursor for the batch)
//   BM_Tick_FixedBuffer_PerCall  the same batch, one serialize() call per tick
//   BM_Tick_FixedBuffer_Naive  the same batch, field by field
//   BM_Tick_Memcpy          the batch's baseline: one memcpy per tick into a byte array
//   BM_Tick_MappedLog_Write 1M ticks appended to a MappedFile log (create, batch_writer,
//                           close: the file grows by fallocate + mremap; no msync)
//   BM_Tick_MappedLog_Read  the log reopened read-only and all 1M ticks decoded
//
// Ticks come from a pre-generated pool of 4096 (128 KiB, cache resident), so
// the loops measure encoding, not make_tick(). The field-by-field variants
// write 25 bytes per tick (no padding); the others write sizeof(Tick) = 32.
#include <benchmark/benchmark.h>

#include <bin_serializer/bin_serializer.hpp>
#include <workloads/workloads.hpp>

#include <bin_serializer/io/mapped_file.hpp>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/bench_util.hpp"

namespace {

using bin_serializer::Buffer;
using bin_serializer::FixedBuffer;
using workloads::Tick;

constexpr std::size_t kPool = 4096; // power of two
constexpr std::size_t kStream = 1'000'000;
constexpr std::size_t kBatch = 256;
constexpr std::size_t kNaiveTickBytes = 8 + 4 + 4 + 8 + 1;

const std::vector<Tick>& tick_pool() {
  static const std::vector<Tick> pool = [] {
    std::vector<Tick> p;
    p.reserve(kPool);
    for (std::size_t i = 0; i < kPool; ++i) p.push_back(workloads::make_tick(i));
    return p;
  }();
  return pool;
}

template <class B>
inline bool write_tick_fields(B& b, const Tick& t) {
  return b.write(&t.timestamp_ns, sizeof t.timestamp_ns) &&
         b.write(&t.symbol_id, sizeof t.symbol_id) && b.write(&t.quantity, sizeof t.quantity) &&
         b.write(&t.price, sizeof t.price) && b.write(&t.side, sizeof t.side);
}

inline void publish(const std::byte* data, std::size_t size) {
  benchmark::DoNotOptimize(data);
  benchmark::DoNotOptimize(size);
}

void finish(benchmark::State& st, std::size_t ticks_per_iteration, std::size_t bytes_per_tick) {
  const auto n = static_cast<std::int64_t>(st.iterations() * ticks_per_iteration);
  st.SetItemsProcessed(n);
  st.SetBytesProcessed(n * static_cast<std::int64_t>(bytes_per_tick));
}

void BM_Tick(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  Buffer buf;
  buf.reserve(kStream * sizeof(Tick)); // the stream's buffer is reused, as in a recorder
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    buf.clear();
    bool ok = true;
    for (std::size_t i = 0; i < kStream; ++i) ok &= serialize(buf, ticks[i & (kPool - 1)]);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kStream, sizeof(Tick));
}

void BM_Tick_Naive(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  Buffer buf;
  buf.reserve(kStream * sizeof(Tick));
  bench::escape(&buf);
  auto op = [&]() BENCH_ALWAYS_INLINE {
    buf.clear();
    bool ok = true;
    for (std::size_t i = 0; i < kStream; ++i) ok &= write_tick_fields(buf, ticks[i & (kPool - 1)]);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kStream, kNaiveTickBytes);
}

void BM_Tick_FixedBuffer(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  FixedBuffer<kBatch * sizeof(Tick)> buf;
  bench::escape(&buf);
  std::size_t base = 0;
  auto op = [&]() BENCH_ALWAYS_INLINE {
    const Tick* batch = ticks + base;
    buf.clear();
    bool ok = true;
    {
      bin_serializer::batch_writer out(buf);
      for (std::size_t i = 0; i < kBatch; ++i) ok &= out.write(batch[i]);
    }
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
    base = (base + kBatch) & (kPool - 1);
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kBatch, sizeof(Tick));
}

void BM_Tick_FixedBuffer_PerCall(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  FixedBuffer<kBatch * sizeof(Tick)> buf;
  bench::escape(&buf);
  std::size_t base = 0;
  auto op = [&]() BENCH_ALWAYS_INLINE {
    const Tick* batch = ticks + base;
    buf.clear();
    bool ok = true;
    for (std::size_t i = 0; i < kBatch; ++i) ok &= serialize(buf, batch[i]);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
    base = (base + kBatch) & (kPool - 1);
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kBatch, sizeof(Tick));
}

void BM_Tick_FixedBuffer_Naive(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  FixedBuffer<kBatch * sizeof(Tick)> buf;
  bench::escape(&buf);
  std::size_t base = 0;
  auto op = [&]() BENCH_ALWAYS_INLINE {
    const Tick* batch = ticks + base;
    buf.clear();
    bool ok = true;
    for (std::size_t i = 0; i < kBatch; ++i) ok &= write_tick_fields(buf, batch[i]);
    benchmark::DoNotOptimize(ok);
    publish(buf.data(), buf.size());
    base = (base + kBatch) & (kPool - 1);
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kBatch, kNaiveTickBytes);
}

void BM_Tick_Memcpy(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  alignas(16) std::byte out[kBatch * sizeof(Tick)];
  bench::escape(&out);
  std::size_t base = 0;
  auto op = [&]() BENCH_ALWAYS_INLINE {
    const Tick* batch = ticks + base;
    for (std::size_t i = 0; i < kBatch; ++i)
      std::memcpy(out + i * sizeof(Tick), &batch[i], sizeof(Tick));
    publish(out, kBatch * sizeof(Tick));
    base = (base + kBatch) & (kPool - 1);
  };
  bench::count_allocs(st, op, 3);
  for (auto _ : st) op();
  finish(st, kBatch, sizeof(Tick));
}

// ---- append-only message log in a memory-mapped file ------------------------
// The file lives in $BENCH_TMPDIR (default /tmp): the rows measure the page
// cache and the file system there, not the disk (nothing is msync'ed).

std::string log_path() {
  const char* dir = std::getenv("BENCH_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/bin_serializer_bench_" +
         std::to_string(::getpid()) + ".log";
}

bool write_tick_log(const std::string& path, const Tick* ticks) {
  bin_serializer::MappedFile log;
  if (!log.open(path.c_str(), bin_serializer::MappedFile::mode::create)) return false;
  bool ok = true;
  {
    bin_serializer::batch_writer out(log);
    for (std::size_t i = 0; i < kStream; ++i) ok &= out.write(ticks[i & (kPool - 1)]);
  }
  return log.close() && ok;
}

void BM_Tick_MappedLog_Write(benchmark::State& st) {
  const Tick* ticks = tick_pool().data();
  const std::string path = log_path();
  bool ok = true;
  auto op = [&] { ok &= write_tick_log(path, ticks); };
  bench::count_allocs(st, op, 1);
  for (auto _ : st) op();
  std::remove(path.c_str());
  if (!ok) st.SkipWithError("MappedFile log write failed");
  finish(st, kStream, sizeof(Tick));
}

void BM_Tick_MappedLog_Read(benchmark::State& st) {
  const std::string path = log_path();
  if (!write_tick_log(path, tick_pool().data())) {
    st.SkipWithError("MappedFile log write failed");
    return;
  }
  bool ok = true;
  auto op = [&] {
    bin_serializer::MappedFile log;
    ok &= log.open(path.c_str(), bin_serializer::MappedFile::mode::read_only);
    Tick t{};
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kStream; ++i) {
      ok &= deserialize(log, t);
      sum += t.quantity;
    }
    benchmark::DoNotOptimize(sum);
  };
  bench::count_allocs(st, op, 1);
  for (auto _ : st) op();
  std::remove(path.c_str());
  if (!ok) st.SkipWithError("MappedFile log read failed");
  finish(st, kStream, sizeof(Tick));
}

} // namespace

BENCHMARK(BM_Tick)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tick_Naive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tick_FixedBuffer);
BENCHMARK(BM_Tick_FixedBuffer_PerCall);
BENCHMARK(BM_Tick_FixedBuffer_Naive);
BENCHMARK(BM_Tick_Memcpy);
BENCHMARK(BM_Tick_MappedLog_Write)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tick_MappedLog_Read)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::add_build_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
