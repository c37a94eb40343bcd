// The peers harness: one "cell" per (workload, library). Each library file
// supplies adapters; the harness checks them, measures the untimed numbers
// (wire size, zlib size, allocations) and registers the timed benchmarks.
//
// An adapter A for workload value type T provides
//   bytes_view encode(const T&)            serialize into storage A reuses; the
//                                          bytes stay valid until the next encode
//   bool decode(bytes_view, T&)            every field back into the user's struct
// and optionally
//   std::uint64_t traverse(bytes_view)     zero-copy peers: read every field in
//                                          place, return checksum() of the value
//   bool check_decode(bytes_view, T&)      what the round-trip check uses when
//                                          decode() does not produce a T
//   void bind(const std::vector<T>&)       see the whole pool before encoding
//   static constexpr bool timed_serialize  false: serialize is not timed (a row
//                                          that differs from another only in decode)
//   static constexpr bool timed_deserialize
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/alloc_counter.hpp"
#include "peers/checksum.hpp"
#include "peers/workload_pools.hpp"

namespace peers {

using bytes_view = std::span<const std::byte>;

// Everything about a cell that is not a timing; written to the meta JSON.
struct cell_meta {
  std::string workload;
  std::string library;
  std::string status = "ok"; // ok | error | unsupported
  std::string error;         // why, when status != ok
  std::size_t pool_size = 0;
  double wire_bytes = 0;        // mean over the pool
  double zlib_bytes = 0;        // mean of compress2(level 6) per message
  double serialize_allocs = -1; // per op, after warm-up (-1: not measured)
  double deserialize_allocs = -1;
  double traverse_allocs = -1;
  bool timed_serialize = false;
  bool timed_deserialize = false;
  bool timed_traverse = false;
};

std::vector<cell_meta>& all_cells();

// Records a (workload, library) pair the library cannot or does not express.
void add_unsupported(const char* workload, const char* library, std::string why);

// Compressed size of one message (zlib compress2, level 6).
std::size_t zlib_size(bytes_view bytes);

namespace detail {

template <class A>
concept has_traverse = requires(A& a, bytes_view b) {
  { a.traverse(b) } -> std::convertible_to<std::uint64_t>;
};
template <class A, class T>
concept has_check_decode = requires(A& a, bytes_view b, T& v) {
  { a.check_decode(b, v) } -> std::convertible_to<bool>;
};
template <class A, class T>
concept has_bind = requires(A& a, const std::vector<T>& p) { a.bind(p); };

template <class A>
constexpr bool timed_serialize() {
  if constexpr (requires { A::timed_serialize; })
    return A::timed_serialize;
  else
    return true;
}
template <class A>
constexpr bool timed_deserialize() {
  if constexpr (requires { A::timed_deserialize; })
    return A::timed_deserialize;
  else
    return true;
}

// A received message: its own 16-byte aligned copy of the encoded bytes.
struct message {
  std::vector<std::uint64_t> words; // uint64 storage: 8-byte alignment at least
  std::size_t size = 0;
  bytes_view view() const { return {reinterpret_cast<const std::byte*>(words.data()), size}; }
  void assign(bytes_view b) {
    words.assign((b.size() + 7) / 8, 0);
    size = b.size();
    if (size != 0) std::memcpy(words.data(), b.data(), size);
  }
};

template <class W, class A>
struct cell_state {
  using T = typename W::value_type;
  const std::vector<T>* pool = nullptr;
  A adapter;
  std::vector<message> messages;
  T out{};
  std::size_t total_wire = 0; // bytes of one pass over the pool
};

} // namespace detail

std::string benchmark_name(const char* workload, const char* library, const char* op);

// Checks one cell and, if it passes, registers its timed benchmarks. The
// adapter is default constructed once and reused by every call.
template <class W, class A>
void add_cell(const char* library) {
  using T = typename W::value_type;
  using state_t = detail::cell_state<W, A>;
  auto st = std::make_shared<state_t>();
  st->pool = &W::pool();
  const std::vector<T>& pool = *st->pool;
  A& a = st->adapter;

  cell_meta meta;
  meta.workload = W::id;
  meta.library = library;
  meta.pool_size = pool.size();
  auto fail = [&](std::string why) {
    meta.status = "error";
    meta.error = std::move(why);
    all_cells().push_back(meta);
  };

  try {
    if constexpr (detail::has_bind<A, T>) a.bind(pool);
    // One warm-up pass first, so what is kept is what the encoder produces in
    // its steady state (an encoder may size its scratch space on first use).
    for (const T& v : pool) (void)a.encode(v);
    // Encode every pool value; keep a private copy as the "received" bytes.
    st->messages.resize(pool.size());
    double zsum = 0;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      const bytes_view b = a.encode(pool[i]);
      if (b.empty()) return fail("encode produced no bytes (element " + std::to_string(i) + ")");
      st->messages[i].assign(b);
      st->total_wire += b.size();
      zsum += static_cast<double>(zlib_size(b));
    }
    meta.wire_bytes = static_cast<double>(st->total_wire) / static_cast<double>(pool.size());
    meta.zlib_bytes = zsum / static_cast<double>(pool.size());

    // Round trip, into a fresh value and into one reused across messages
    // (the way the timed loop decodes), compared with operator==.
    auto decode_for_check = [&](bytes_view b, T& v) {
      if constexpr (detail::has_check_decode<A, T>)
        return a.check_decode(b, v);
      else
        return a.decode(b, v);
    };
    T reused{};
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < pool.size(); ++i) {
        T fresh{};
        if (!decode_for_check(st->messages[i].view(), fresh))
          return fail("decode failed (element " + std::to_string(i) + ")");
        if (!(fresh == pool[i]))
          return fail("round trip mismatch: decoded value != original (element " +
                      std::to_string(i) + ")");
        if (!decode_for_check(st->messages[i].view(), reused) || !(reused == pool[i]))
          return fail("round trip mismatch when decoding into a reused value (element " +
                      std::to_string(i) + ")");
      }
    }
    if constexpr (detail::has_traverse<A>) {
      for (std::size_t i = 0; i < pool.size(); ++i) {
        const std::uint64_t want = checksum(pool[i]);
        const std::uint64_t got = a.traverse(st->messages[i].view());
        if (got != want)
          return fail("traverse checksum mismatch (element " + std::to_string(i) + ")");
      }
    }

    // Allocations per op, after warm-up (two passes above plus one here).
    for (std::size_t i = 0; i < pool.size(); ++i) {
      (void)a.encode(pool[i]);
      (void)a.decode(st->messages[i].view(), st->out);
    }
    const auto n = static_cast<double>(pool.size());
    {
      bench::alloc_scope s;
      for (std::size_t i = 0; i < pool.size(); ++i) (void)a.encode(pool[i]);
      meta.serialize_allocs = static_cast<double>(s.allocations()) / n;
    }
    {
      bench::alloc_scope s;
      for (std::size_t i = 0; i < pool.size(); ++i) (void)a.decode(st->messages[i].view(), st->out);
      meta.deserialize_allocs = static_cast<double>(s.allocations()) / n;
    }
    if constexpr (detail::has_traverse<A>) {
      bench::alloc_scope s;
      for (std::size_t i = 0; i < pool.size(); ++i) (void)a.traverse(st->messages[i].view());
      meta.traverse_allocs = static_cast<double>(s.allocations()) / n;
    }
  } catch (const std::exception& e) {
    return fail(std::string("exception: ") + e.what());
  } catch (...) {
    return fail("unknown exception");
  }

  // ---- timed benchmarks ----
  const std::size_t count = pool.size();
  if constexpr (detail::timed_serialize<A>()) {
    meta.timed_serialize = true;
    benchmark::RegisterBenchmark(
        benchmark_name(W::id, library, "serialize").c_str(), [st, count](benchmark::State& state) {
          A& ad = st->adapter;
          const T* values = st->pool->data();
          std::size_t i = 0;
          for (auto _ : state) {
            const bytes_view b = ad.encode(values[i]);
            benchmark::DoNotOptimize(b.data());
            benchmark::DoNotOptimize(b.size());
            if (++i == count) i = 0;
          }
          state.SetBytesProcessed(
              static_cast<std::int64_t>(state.iterations() * st->total_wire / count));
        });
  }
  if constexpr (detail::timed_deserialize<A>()) {
    meta.timed_deserialize = true;
    benchmark::RegisterBenchmark(benchmark_name(W::id, library, "deserialize").c_str(),
                                 [st, count](benchmark::State& state) {
                                   A& ad = st->adapter;
                                   const detail::message* msgs = st->messages.data();
                                   T& out = st->out;
                                   std::size_t i = 0;
                                   for (auto _ : state) {
                                     const bool ok = ad.decode(msgs[i].view(), out);
                                     if (!ok) [[unlikely]] {
                                       state.SkipWithError("decode failed");
                                       break;
                                     }
                                     benchmark::DoNotOptimize(&out);
                                     if (++i == count) i = 0;
                                   }
                                   state.SetBytesProcessed(static_cast<std::int64_t>(
                                       state.iterations() * st->total_wire / count));
                                 });
  }
  if constexpr (detail::has_traverse<A>) {
    meta.timed_traverse = true;
    benchmark::RegisterBenchmark(
        benchmark_name(W::id, library, "traverse").c_str(), [st, count](benchmark::State& state) {
          A& ad = st->adapter;
          const detail::message* msgs = st->messages.data();
          std::size_t i = 0;
          for (auto _ : state) {
            const std::uint64_t sum = ad.traverse(msgs[i].view());
            benchmark::DoNotOptimize(sum);
            if (++i == count) i = 0;
          }
          state.SetBytesProcessed(
              static_cast<std::int64_t>(state.iterations() * st->total_wire / count));
        });
  }
  all_cells().push_back(std::move(meta));
}

// Library registration entry points (one per peer file; main.cpp calls the
// ones that were built).
void register_bin_serializer();
void register_handwritten();
void register_msgpack();
void register_cereal();
void register_fastcdr();
void register_flatbuffers();
void register_flexbuffers();
void register_protobuf();
void register_capnp();
void register_zpp_bits();
void register_struct_pack();

} // namespace peers
