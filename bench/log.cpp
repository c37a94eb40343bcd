// Record logs (docs/logs.md): writing and reading the market mix of issue 31
// (35 % Trade, 60 % Quote, 5 % Status, compact) through log_writer /
// log_reader, against the bare payload loop (the same values serialized back
// to back with no framing, and decoded with their types known), into a
// reused Buffer and a MappedFile; and CRC32C per record against per block.
//
//   benchmark_log --benchmark_min_time=0.5
//
// Items are records; the log rows include framing, both CRCs and the checks
// of every block.
#include <benchmark/benchmark.h>

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/buffer/mapped_file.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "tests/log/log_types.hpp"

namespace bs = bin_serializer;
using log_test::Quote;
using log_test::Status;
using log_test::Trade;
using S = log_test::market_schema<bs::compact>;

namespace {

constexpr std::size_t batch = 100'000;

const std::vector<log_test::record>& records() {
  static const std::vector<log_test::record> r = [] {
    std::vector<log_test::record> v;
    v.reserve(batch);
    for (std::size_t i = 0; i < batch; ++i) v.push_back(log_test::market(i));
    return v;
  }();
  return r;
}

template <class W>
bool write_all(W& w) {
  bool ok = true;
  for (const auto& r : records()) ok &= std::visit([&w](const auto& v) { return w.write(v); }, r);
  return ok;
}

// The floor: payloads alone, back to back.
// One pass before timing: the output's pages are faulted in and its
// capacity reached, so short runs (scripts/bench.sh --quick) measure the
// steady state like long ones.
template <class F>
void warm_up(F&& one_pass) {
  one_pass();
}

void BM_Log_BarePayload_Write(benchmark::State& state) {
  bs::Buffer buf;
  warm_up([&] {
    for (const auto& r : records())
      std::visit([&buf](const auto& v) { (void)bs::serialize<bs::compact>(buf, v); }, r);
  });
  for (auto _ : state) {
    buf.clear();
    bool ok = true;
    for (const auto& r : records())
      ok &= std::visit([&buf](const auto& v) { return bs::serialize<bs::compact>(buf, v); }, r);
    if (!ok) state.SkipWithError("serialize failed");
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  state.counters["bytes_per_record"] = double(buf.size()) / batch;
}

void read_bare(benchmark::State& state, std::span<const std::byte> bytes) {
  Trade t;
  Quote q;
  Status s;
  for (auto _ : state) {
    bs::BufferView in(bytes);
    bool ok = true;
    for (std::size_t i = 0; i < batch; ++i) {
      const std::size_t k = i % 20;
      if (k < 7)
        ok &= bs::deserialize<bs::compact>(in, t);
      else if (k < 19)
        ok &= bs::deserialize<bs::compact>(in, q);
      else
        ok &= bs::deserialize<bs::compact>(in, s);
    }
    if (!ok) state.SkipWithError("deserialize failed");
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(q);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}

void BM_Log_BarePayload_Read(benchmark::State& state) {
  bs::Buffer buf;
  for (const auto& r : records())
    std::visit([&buf](const auto& v) { (void)bs::serialize<bs::compact>(buf, v); }, r);
  read_bare(state, buf.bytes());
}

std::string temp_path() {
  return (std::filesystem::temp_directory_path() / "bs_bench_log.bsl").string();
}

// The same floors in a MappedFile (its pages cost what they cost, log or not).
void BM_Log_BarePayload_Write_MappedFile(benchmark::State& state) {
  const std::string path = temp_path() + ".bare";
  bs::MappedFile file;
  if (!file.open(path.c_str(), bs::MappedFile::mode::create)) {
    state.SkipWithError("cannot create the file");
    return;
  }
  warm_up([&] {
    for (const auto& r : records())
      std::visit([&file](const auto& v) { (void)bs::serialize<bs::compact>(file, v); }, r);
  });
  for (auto _ : state) {
    file.clear();
    bool ok = true;
    for (const auto& r : records())
      ok &= std::visit([&file](const auto& v) { return bs::serialize<bs::compact>(file, v); }, r);
    if (!ok) state.SkipWithError("serialize failed");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  (void)file.close();
  std::filesystem::remove(path);
}

void BM_Log_BarePayload_Read_MappedFile(benchmark::State& state) {
  const std::string path = temp_path() + ".bare";
  {
    bs::MappedFile file;
    (void)file.open(path.c_str(), bs::MappedFile::mode::create);
    for (const auto& r : records())
      std::visit([&file](const auto& v) { (void)bs::serialize<bs::compact>(file, v); }, r);
    (void)file.close();
  }
  bs::MappedFile file;
  if (!file.open(path.c_str(), bs::MappedFile::mode::read_only)) {
    state.SkipWithError("cannot open the file");
    return;
  }
  read_bare(state, file.bytes());
  (void)file.close();
  std::filesystem::remove(path);
}

void BM_Log_Write_Buffer(benchmark::State& state) {
  bs::Buffer buf;
  warm_up([&] {
    bs::log_writer<S, bs::Buffer> w(buf, {.descriptions = false});
    (void)write_all(w);
  });
  for (auto _ : state) {
    buf.clear();
    bs::log_writer<S, bs::Buffer> w(buf, {.descriptions = false});
    if (!write_all(w) || !w.close()) state.SkipWithError("write failed");
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  state.counters["bytes_per_record"] = double(buf.size()) / batch;
}

struct visitor {
  std::uint64_t sum = 0;
  void operator()(const Trade& t) { sum += t.qty; }
  void operator()(const Quote& q) { sum += q.bsz; }
  void operator()(const Status& s) { sum += s.text.size(); }
};

void read_log(benchmark::State& state, std::span<const std::byte> bytes) {
  for (auto _ : state) {
    bs::log_reader<S> r(bytes);
    visitor v;
    while (r.visit(v)) {
    }
    if (r.end() != bs::log_end::clean || r.records() != batch) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(v.sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}

void BM_Log_Read_Buffer(benchmark::State& state) {
  bs::Buffer buf;
  {
    bs::log_writer<S, bs::Buffer> w(buf, {.descriptions = false});
    (void)write_all(w);
  }
  read_log(state, buf.bytes());
}

void BM_Log_Write_MappedFile(benchmark::State& state) {
  const std::string path = temp_path();
  bs::MappedFile file;
  if (!file.open(path.c_str(), bs::MappedFile::mode::create)) {
    state.SkipWithError("cannot create the file");
    return;
  }
  warm_up([&] {
    bs::log_writer<S, bs::MappedFile> w(file, {.descriptions = false});
    (void)write_all(w);
  });
  for (auto _ : state) {
    file.clear(); // the file keeps its capacity: steady state, no growth
    bs::log_writer<S, bs::MappedFile> w(file, {.descriptions = false});
    if (!write_all(w) || !w.close()) state.SkipWithError("write failed");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  (void)file.close();
  std::filesystem::remove(path);
}

void BM_Log_Read_MappedFile(benchmark::State& state) {
  const std::string path = temp_path();
  {
    bs::MappedFile file;
    (void)file.open(path.c_str(), bs::MappedFile::mode::create);
    bs::log_writer<S, bs::MappedFile> w(file, {.descriptions = false});
    (void)write_all(w);
    (void)w.close();
    (void)file.close();
  }
  bs::MappedFile file;
  if (!file.open(path.c_str(), bs::MappedFile::mode::read_only)) {
    state.SkipWithError("cannot open the file");
    return;
  }
  read_log(state, file.bytes());
  (void)file.close();
  std::filesystem::remove(path);
}

// Per record (about 21 bytes) or per 4 KiB block: why the log checks blocks.
void BM_Crc32c(benchmark::State& state) {
  std::vector<unsigned char> data(static_cast<std::size_t>(state.range(0)), 0x5A);
  for (auto _ : state) {
    benchmark::DoNotOptimize(bs::crc32c::compute(data.data(), data.size()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}

} // namespace

BENCHMARK(BM_Log_BarePayload_Write);
BENCHMARK(BM_Log_Write_Buffer);
BENCHMARK(BM_Log_BarePayload_Write_MappedFile);
BENCHMARK(BM_Log_Write_MappedFile);
BENCHMARK(BM_Log_BarePayload_Read);
BENCHMARK(BM_Log_Read_Buffer);
BENCHMARK(BM_Log_BarePayload_Read_MappedFile);
BENCHMARK(BM_Log_Read_MappedFile);
BENCHMARK(BM_Crc32c)->Arg(21)->Arg(4096);

BENCHMARK_MAIN();
