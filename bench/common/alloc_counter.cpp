// Global allocation counting for the benchmark executables; see alloc_counter.hpp.
//
// operator new goes straight to glibc's allocator (__libc_malloc), so a `new`
// is counted once even though libstdc++'s own operator new would have called
// malloc. malloc/calloc/realloc/free are interposed for code that calls them
// directly. Every replacement forwards to the same glibc allocator, so memory
// can be freed through any of the entry points.
#include "common/alloc_counter.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
thread_local bench::alloc_stats t_stats;

inline void note_alloc(std::size_t n) noexcept {
  ++t_stats.allocations;
  t_stats.bytes += n;
}
inline void note_free(void* p) noexcept {
  if (p != nullptr) ++t_stats.frees;
}
} // namespace

#if defined(__GLIBC__)
#define BENCH_INTERPOSE_MALLOC 1
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  note_alloc(n);
  return __libc_malloc(n);
}
void* calloc(std::size_t count, std::size_t size) {
  note_alloc(count * size);
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t n) {
  if (n != 0) note_alloc(n);
  return __libc_realloc(p, n);
}
void free(void* p) {
  note_free(p);
  __libc_free(p);
}
}
#define BENCH_RAW_MALLOC(n) __libc_malloc(n)
#define BENCH_RAW_ALIGNED(a, n) __libc_memalign((a), (n))
#define BENCH_RAW_FREE(p) __libc_free(p)
#else
#define BENCH_INTERPOSE_MALLOC 0
#define BENCH_RAW_MALLOC(n) std::malloc(n)
#define BENCH_RAW_ALIGNED(a, n) std::aligned_alloc((a), ((n) + (a) - 1) / (a) * (a))
#define BENCH_RAW_FREE(p) std::free(p)
#endif

namespace bench {
alloc_stats alloc_totals() noexcept { return t_stats; }
bool alloc_counter_sees_malloc() noexcept { return BENCH_INTERPOSE_MALLOC != 0; }
} // namespace bench

namespace {
void* counted_new(std::size_t n) noexcept {
  note_alloc(n);
  return BENCH_RAW_MALLOC(n == 0 ? 1 : n);
}
void* counted_new_aligned(std::size_t n, std::align_val_t a) noexcept {
  note_alloc(n);
  return BENCH_RAW_ALIGNED(static_cast<std::size_t>(a), n == 0 ? 1 : n);
}
void* must(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void counted_delete(void* p) noexcept {
  note_free(p);
  BENCH_RAW_FREE(p);
}
} // namespace

void* operator new(std::size_t n) { return must(counted_new(n)); }
void* operator new[](std::size_t n) { return must(counted_new(n)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void* operator new(std::size_t n, std::align_val_t a) { return must(counted_new_aligned(n, a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return must(counted_new_aligned(n, a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_new_aligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_new_aligned(n, a);
}

void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_delete(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_delete(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_delete(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_delete(p);
}
