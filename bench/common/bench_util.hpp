// Small helpers shared by the benchmark executables.
#pragma once

#include <benchmark/benchmark.h>

#include <bin_serializer/version.hpp>

#include <cstddef>
#include <string>

#include "common/alloc_counter.hpp"

#ifndef BENCH_COMPILER
#define BENCH_COMPILER "unknown"
#endif
#ifndef BENCH_CXX_FLAGS
#define BENCH_CXX_FLAGS "unknown"
#endif
#ifndef BENCH_BUILD_TYPE
#define BENCH_BUILD_TYPE "unknown"
#endif

// For the per-benchmark `op` lambdas: always inlined into the timed loop.
#if defined(__GNUC__) || defined(__clang__)
#define BENCH_ALWAYS_INLINE __attribute__((always_inline))
#else
#define BENCH_ALWAYS_INLINE
#endif

namespace bench {

inline std::string library_version() {
  return std::to_string(BIN_SERIALIZER_VERSION_MAJOR) + "." +
         std::to_string(BIN_SERIALIZER_VERSION_MINOR) + "." +
         std::to_string(BIN_SERIALIZER_VERSION_PATCH);
}

// Written into the "context" object of Google Benchmark's JSON output.
inline void add_build_context() {
  benchmark::AddCustomContext("bin_serializer_version", library_version());
  benchmark::AddCustomContext("compiler", BENCH_COMPILER);
  benchmark::AddCustomContext("cxx_flags", BENCH_CXX_FLAGS);
  benchmark::AddCustomContext("build_type", BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("alloc_counter", alloc_counter_sees_malloc()
                                                   ? "operator new + malloc family"
                                                   : "operator new only");
}

// Hand a value's address to the optimiser as "used and possibly changed by
// someone else". Called once on an object before a loop, it makes the object
// live in memory (as a buffer kept in a session object would); called in the
// loop, it publishes the bytes written so far.
template <class T>
inline void escape(T* p) {
  benchmark::DoNotOptimize(p);
}

// Heap allocations of one operation, measured before the timed loop: the
// operation runs once to warm up (first-use growth is not per-op cost), then
// `runs` more times while allocations are counted. Reported as the counter
// allocs_per_iter. Counting outside the loop keeps Google Benchmark's own
// bookkeeping (a few allocations per run) out of the figure and keeps the
// timed loop free of counter reads.
template <class Op>
void count_allocs(benchmark::State& st, Op& op, int runs = 1000) {
  op();
  alloc_scope scope;
  for (int i = 0; i < runs; ++i) op();
  const auto n = static_cast<double>(scope.allocations()) / runs; // before the map insert allocates
  st.counters["allocs_per_iter"] = n;
}

} // namespace bench
