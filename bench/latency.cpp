// benchmark_latency: per-message latency distribution of the FixedBuffer Tick
// path, fast (serialize: one copy of the trivially copyable Tick) against naive
// (one FixedBuffer::write per member).
//
// Timing (printed with the results):
//   * On x86-64 each sample is read with the time-stamp counter: lfence+rdtsc
//     before, rdtscp+lfence after. The counter's rate is calibrated against
//     std::chrono::steady_clock over a few 20 ms windows (median taken), and
//     the timer's own cost (median of empty samples) is subtracted from every
//     sample. Elsewhere steady_clock is read directly (or with --clock=steady).
//   * One sample times a batch of --batch messages (default 16: long enough
//     that the timer's jitter is a small part of it, short enough that an
//     interrupt lands in few samples) and records the batch's time divided by
//     the batch size, i.e. the per-message latency in that batch.
//   * Fast and naive samples are taken in alternating blocks of 1000, so both
//     see the same machine noise.
//
// Options: --samples=N (default 1000000) --batch=N --clock=tsc|steady
//          --out=FILE (JSON) --cpu=N (pin to a CPU)
#include <bin_serializer/bin_serializer.hpp>
#include <workloads/workloads.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/alloc_counter.hpp"
#include "common/bench_util.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

using bin_serializer::FixedBuffer;
using workloads::Tick;
using steady = std::chrono::steady_clock;

constexpr std::size_t kPool = 4096;
constexpr std::size_t kBlock = 1000;

// ---------------------------------------------------------------------------
// Clocks: ticks() returns raw units; to_ns converts.
// ---------------------------------------------------------------------------
struct tsc_clock {
#if BENCH_HAVE_TSC
  static inline std::uint64_t start() noexcept {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
  static inline std::uint64_t stop() noexcept {
    unsigned aux;
    const std::uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
  }
#else
  static std::uint64_t start() noexcept { return 0; }
  static std::uint64_t stop() noexcept { return 0; }
#endif
};

struct steady_clock_timer {
  static inline std::uint64_t start() noexcept {
    return static_cast<std::uint64_t>(steady::now().time_since_epoch().count());
  }
  static inline std::uint64_t stop() noexcept { return start(); }
};

// Counter units per nanosecond, measured against steady_clock.
double calibrate_tsc() {
  std::vector<double> rates;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = steady::now();
    const std::uint64_t c0 = tsc_clock::start();
    while (steady::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const std::uint64_t c1 = tsc_clock::stop();
    const auto t1 = steady::now();
    const double ns =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    rates.push_back(static_cast<double>(c1 - c0) / ns);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

// ---------------------------------------------------------------------------
// The two paths. Each message: clear the FixedBuffer, encode one Tick, hand
// (data, size) to the consumer.
// ---------------------------------------------------------------------------
using TickBuffer = FixedBuffer<bin_serializer::max_serialized_size_v<Tick>>;

inline void publish(TickBuffer& buf) {
  const std::byte* p = buf.data();
  std::size_t n = buf.size();
  asm volatile("" : : "r"(p), "r"(n) : "memory");
}

struct fast_path {
  static inline bool encode(TickBuffer& buf, const Tick& t) noexcept {
    buf.clear();
    const bool ok = serialize(buf, t);
    publish(buf);
    return ok;
  }
};

struct naive_path {
  static inline bool encode(TickBuffer& buf, const Tick& t) noexcept {
    buf.clear();
    const bool ok = buf.write(&t.timestamp_ns, sizeof t.timestamp_ns) &&
                    buf.write(&t.symbol_id, sizeof t.symbol_id) &&
                    buf.write(&t.quantity, sizeof t.quantity) &&
                    buf.write(&t.price, sizeof t.price) && buf.write(&t.side, sizeof t.side);
    publish(buf);
    return ok;
  }
};

// Fills out[0..n) with raw timer units per batch.
template <class Clock, class Path>
bool sample_block(TickBuffer& buf, const Tick* pool, std::size_t& cursor, std::size_t batch,
                  std::uint64_t* out, std::size_t n) {
  bool ok = true;
  for (std::size_t s = 0; s < n; ++s) {
    const Tick* src = pool + cursor;
    const std::uint64_t t0 = Clock::start();
    for (std::size_t i = 0; i < batch; ++i) ok &= Path::encode(buf, src[i]);
    const std::uint64_t t1 = Clock::stop();
    out[s] = t1 - t0;
    cursor += batch;
    if (cursor + batch > kPool) cursor = 0;
  }
  return ok;
}

// Median cost of timing nothing, in raw units.
template <class Clock>
std::uint64_t timer_overhead() {
  std::vector<std::uint64_t> v(200'000);
  for (auto& x : v) {
    const std::uint64_t t0 = Clock::start();
    asm volatile("" ::: "memory");
    const std::uint64_t t1 = Clock::stop();
    x = t1 - t0;
  }
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

struct summary {
  double p50, p95, p99, p999, max, mean, min;
  std::vector<std::pair<double, double>> curve; // (percentile, ns)
};

summary summarise(std::vector<double>& ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    const auto idx = static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1) + 0.5);
    return ns[std::min(idx, ns.size() - 1)];
  };
  summary s{};
  s.p50 = at(0.50);
  s.p95 = at(0.95);
  s.p99 = at(0.99);
  s.p999 = at(0.999);
  s.max = ns.back();
  s.min = ns.front();
  double total = 0;
  for (double x : ns) total += x;
  s.mean = total / static_cast<double>(ns.size());
  for (double q :
       {0.0, 0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999})
    s.curve.emplace_back(q * 100.0, at(q));
  s.curve.emplace_back(100.0, s.max);
  return s;
}

struct config {
  std::size_t samples = 1'000'000;
  std::size_t batch = 16;
  bool use_tsc = BENCH_HAVE_TSC != 0;
  std::string out;
  int cpu = -1;
};

bool parse(int argc, char** argv, config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](std::string_view key) -> const char* {
      return a.starts_with(key) ? argv[i] + key.size() : nullptr;
    };
    if (const char* v = value("--samples=")) {
      c.samples = std::strtoull(v, nullptr, 10);
    } else if (const char* v2 = value("--batch=")) {
      c.batch = std::strtoull(v2, nullptr, 10);
    } else if (const char* v3 = value("--clock=")) {
      const std::string_view k = v3;
      if (k == "steady")
        c.use_tsc = false;
      else if (k == "tsc" && BENCH_HAVE_TSC)
        c.use_tsc = true;
      else {
        std::fprintf(stderr, "unsupported --clock=%s\n", v3);
        return false;
      }
    } else if (const char* v4 = value("--out=")) {
      c.out = v4;
    } else if (const char* v5 = value("--cpu=")) {
      c.cpu = std::atoi(v5);
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--samples=N] [--batch=N] [--clock=tsc|steady] [--out=FILE] [--cpu=N]\n",
          argv[0]);
      return false;
    }
  }
  if (c.samples < kBlock) c.samples = kBlock;
  c.samples -= c.samples % kBlock;
  if (c.batch == 0 || c.batch > 256) c.batch = 16;
  return true;
}

template <class Clock>
int run(const config& cfg, double units_per_ns, const char* clock_name) {
  std::vector<Tick> pool;
  for (std::size_t i = 0; i < kPool; ++i) pool.push_back(workloads::make_tick(i));

  const std::uint64_t overhead = timer_overhead<Clock>();

  std::vector<std::uint64_t> raw_fast(cfg.samples), raw_naive(cfg.samples);
  TickBuffer buf_fast, buf_naive;
  std::size_t cur_fast = 0, cur_naive = 0;
  bool ok = true;

  // Warm-up: caches, branch predictors, page faults on the sample arrays.
  for (int w = 0; w < 20; ++w) {
    ok &= sample_block<Clock, fast_path>(buf_fast, pool.data(), cur_fast, cfg.batch,
                                         raw_fast.data(), kBlock);
    ok &= sample_block<Clock, naive_path>(buf_naive, pool.data(), cur_naive, cfg.batch,
                                          raw_naive.data(), kBlock);
  }

  bench::alloc_scope allocs;
  const auto wall0 = steady::now();
  for (std::size_t b = 0; b < cfg.samples; b += kBlock) {
    ok &= sample_block<Clock, fast_path>(buf_fast, pool.data(), cur_fast, cfg.batch,
                                         raw_fast.data() + b, kBlock);
    ok &= sample_block<Clock, naive_path>(buf_naive, pool.data(), cur_naive, cfg.batch,
                                          raw_naive.data() + b, kBlock);
    if ((b / kBlock) % 100 == 99)
      std::fprintf(stderr, "\r  latency: %zu / %zu samples", b + kBlock, cfg.samples);
  }
  const double wall_s = std::chrono::duration<double>(steady::now() - wall0).count();
  const std::uint64_t alloc_count = allocs.allocations();
  std::fprintf(stderr, "\n");
  if (!ok) {
    std::fprintf(stderr, "error: a serialize call failed\n");
    return 1;
  }

  auto to_ns = [&](const std::vector<std::uint64_t>& raw) {
    std::vector<double> ns(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const std::uint64_t net = raw[i] > overhead ? raw[i] - overhead : 0;
      ns[i] = static_cast<double>(net) / units_per_ns / static_cast<double>(cfg.batch);
    }
    return ns;
  };
  std::vector<double> ns_fast = to_ns(raw_fast), ns_naive = to_ns(raw_naive);
  const summary f = summarise(ns_fast), n = summarise(ns_naive);

  const double overhead_ns = static_cast<double>(overhead) / units_per_ns;
  std::printf("Latency distribution: %zu samples per path, FixedBuffer<%zu>, Tick (%zu bytes)\n",
              cfg.samples, TickBuffer::capacity(), sizeof(Tick));
  std::printf(
      "clock: %s (%.4f units/ns), batch of %zu messages per sample, timer overhead %.1f ns "
      "subtracted\n",
      clock_name, units_per_ns, cfg.batch, overhead_ns);
  std::printf("heap allocations during sampling: %llu\n\n",
              static_cast<unsigned long long>(alloc_count));
  std::printf("| Percentile | Fast path | Naive |\n|---|---|---|\n");
  std::printf("| p50 | %.2f ns | %.2f ns |\n", f.p50, n.p50);
  std::printf("| p95 | %.2f ns | %.2f ns |\n", f.p95, n.p95);
  std::printf("| p99 | %.2f ns | %.2f ns |\n", f.p99, n.p99);
  std::printf("| p999 | %.2f ns | %.2f ns |\n", f.p999, n.p999);
  std::printf("| Max | %.1f ns | %.1f ns |\n", f.max, n.max);
  std::printf("\np999/p50: fast %.2f, naive %.2f; sampling took %.2f s\n", f.p999 / f.p50,
              n.p999 / n.p50, wall_s);

  if (!cfg.out.empty()) {
    std::FILE* fp = std::fopen(cfg.out.c_str(), "w");
    if (fp == nullptr) {
      std::perror(cfg.out.c_str());
      return 1;
    }
    auto dump = [&](const char* name, const summary& s, bool last) {
      std::fprintf(fp,
                   "    \"%s\": {\"p50\": %.4f, \"p95\": %.4f, \"p99\": %.4f, \"p999\": %.4f, "
                   "\"max\": %.4f, " "\"min\": %.4f, \"mean\": %.4f, \"curve\": [",
                   name, s.p50, s.p95, s.p99, s.p999, s.max, s.min, s.mean);
      for (std::size_t i = 0; i < s.curve.size(); ++i)
        std::fprintf(fp, "%s[%.4f, %.4f]", i ? ", " : "", s.curve[i].first, s.curve[i].second);
      std::fprintf(fp, "]}%s\n", last ? "" : ",");
    };
    std::fprintf(fp, "{\n  \"context\": {\"bin_serializer_version\": \"%s\", \"compiler\": \"%s\", "
                     "\"cxx_flags\": \"%s\", \"build_type\": \"%s\"},\n",
                 bench::library_version().c_str(), BENCH_COMPILER, BENCH_CXX_FLAGS, BENCH_BUILD_TYPE);
    std::fprintf(fp,
                 "  \"clock\": \"%s\", \"units_per_ns\": %.6f, \"batch\": %zu, \"samples\": %zu,\n"
                 "  \"timer_overhead_ns\": %.3f, \"message_bytes\": %zu, \"allocations\": %llu, "
                 "\"wall_seconds\": %.3f,\n  \"paths\": {\n",
                 clock_name, units_per_ns, cfg.batch, cfg.samples, overhead_ns, sizeof(Tick),
                 static_cast<unsigned long long>(alloc_count), wall_s);
    dump("fast", f, false);
    dump("naive", n, true);
    std::fprintf(fp, "  }\n}\n");
    std::fclose(fp);
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  config cfg;
  if (!parse(argc, argv, cfg)) return 2;
#if defined(__linux__)
  if (cfg.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cfg.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
  }
#endif
  if (cfg.use_tsc)
    return run<tsc_clock>(cfg, calibrate_tsc(), "rdtsc (calibrated against steady_clock)");
  return run<steady_clock_timer>(cfg, 1.0, "std::chrono::steady_clock");
}
