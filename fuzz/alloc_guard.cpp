// Per-allocation guard for the fuzz binaries: every form of the global
// operator new / delete is replaced by a malloc/free-based one that aborts when
// a single request exceeds the limit set by fuzz::set_allocation_limit (see
// fuzz_common.hpp for the bound and why). Under AddressSanitizer malloc/free
// are ASan's, so leaks, overflows and use-after-free are still detected.
//
// Linked into each fuzz executable exactly once. The library's Buffer uses the
// nothrow form, which is guarded too.
#include "fuzz_common.hpp"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> g_limit{0};

void check_request(std::size_t size) noexcept {
  const std::size_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit != 0 && size > limit) {
    std::fprintf(stderr,
                 "\n*** fuzz allocation guard: a single allocation of %zu bytes exceeds the "
                 "bound of %zu bytes for this input (fuzz::allocation_bound)\n",
                 size, limit);
    std::fflush(stderr);
    std::abort();
  }
}

void* allocate(std::size_t size) noexcept {
  check_request(size);
  return std::malloc(size == 0 ? 1 : size);
}

void* allocate_aligned(std::size_t size, std::align_val_t align) noexcept {
  check_request(size);
  const auto a = static_cast<std::size_t>(align);
  void* p = nullptr;
  if (posix_memalign(&p, a < sizeof(void*) ? sizeof(void*) : a, size == 0 ? 1 : size) != 0)
    return nullptr;
  return p;
}

// The throwing forms: out of memory in a fuzz run is a finding, never an
// exception to recover from (the binaries may be built with -fno-exceptions).
[[noreturn]] void out_of_memory(std::size_t size) noexcept {
  std::fprintf(stderr, "\n*** fuzz allocation guard: malloc(%zu) failed\n", size);
  std::fflush(stderr);
  std::abort();
}

void* allocate_or_die(std::size_t size) noexcept {
  void* p = allocate(size);
  if (p == nullptr) out_of_memory(size);
  return p;
}

void* allocate_aligned_or_die(std::size_t size, std::align_val_t align) noexcept {
  void* p = allocate_aligned(size, align);
  if (p == nullptr) out_of_memory(size);
  return p;
}

} // namespace

namespace fuzz {
void set_allocation_limit(std::size_t limit) noexcept {
  g_limit.store(limit, std::memory_order_relaxed);
  // Self-test of the instrument (ctest fuzz_guard_selftest): one allocation
  // just over the limit must abort the process with the guard's message.
  static const bool selftest = std::getenv("BIN_SERIALIZER_FUZZ_GUARD_SELFTEST") != nullptr;
  if (selftest && limit != 0) {
    void* p = ::operator new(limit + 1);
    ::operator delete(p);
  }
}
std::size_t allocation_limit() noexcept { return g_limit.load(std::memory_order_relaxed); }
} // namespace fuzz

// NOLINTBEGIN(misc-new-delete-overloads)
void* operator new(std::size_t size) { return allocate_or_die(size); }
void* operator new[](std::size_t size) { return allocate_or_die(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  return allocate_aligned_or_die(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return allocate_aligned_or_die(size, align);
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return allocate_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return allocate_aligned(size, align);
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
// NOLINTEND(misc-new-delete-overloads)
