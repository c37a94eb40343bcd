// Counts heap allocations made by this thread.
//
// alloc_counter.cpp replaces every form of the global operator new / delete and
// interposes malloc, calloc and realloc (glibc), so an allocation is counted
// whether it comes from C++ code (std::string, std::vector, a library's
// `new`) or from a C-style allocator inside a library (msgpack's zone, Cap'n
// Proto's segments). Each call that hands out memory counts once; frees are
// counted separately and never subtracted. Memory a library recycles from its
// own pool (an arena or zone chunk it already holds) is not an allocation.
#pragma once

#include <cstdint>

namespace bench {

struct alloc_stats {
  std::uint64_t allocations = 0; // operator new (all forms) + malloc/calloc/realloc
  std::uint64_t frees = 0;       // operator delete (all forms) + free
  std::uint64_t bytes = 0;       // bytes requested by the allocations above
};

// Totals for the calling thread since it started.
alloc_stats alloc_totals() noexcept;

// True when this build intercepts malloc too (glibc); false means only
// operator new is seen.
bool alloc_counter_sees_malloc() noexcept;

// Allocations made while a scope is alive:
//   bench::alloc_scope s;  work();  s.allocations()
class alloc_scope {
public:
  alloc_scope() noexcept : start_(alloc_totals()) {}
  [[nodiscard]] std::uint64_t allocations() const noexcept {
    return alloc_totals().allocations - start_.allocations;
  }
  [[nodiscard]] std::uint64_t bytes() const noexcept { return alloc_totals().bytes - start_.bytes; }

private:
  alloc_stats start_;
};

} // namespace bench
