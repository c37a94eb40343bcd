// BufferPool: reuse Buffers across messages and threads.
//
//   bin_serializer::BufferPool pool({.max_pooled = 16, .max_retained_capacity = 1 << 20});
//   {
//     auto buf = pool.acquire();          // a pooled_buffer: an empty Buffer on lease
//     serialize(buf, message);            // it is a buffer itself
//     send(buf.data(), buf.size());
//   }                                     // cleared and back in the pool
//
// Thread safety: acquire() and the return of a lease may run concurrently
// from any number of threads (a mutex guards the free list, held only to push
// or pop one Buffer). A lease itself is a plain buffer: one thread at a time.
// The pool must outlive its leases.
//
// Memory: at most max_pooled idle Buffers are kept; a Buffer returned with a
// capacity above max_retained_capacity is freed instead, so one huge message
// does not pin its storage for the life of the pool.
//
// Views (string_view, span, array_view, sequence_view: borrows_input_v)
// decoded from a lease are valid until the lease goes back: the storage is
// then reused by the next acquire(), so a stale view silently reads another
// message rather than freed memory. Decode into owning types when the value
// outlives the lease.
//
// acquire() never fails and never throws. With nothing pooled it hands out a
// new Buffer, which allocates only when first written (or reserves
// initial_capacity; if that allocation fails the Buffer starts empty and its
// first write reports out_of_memory, as any Buffer does).
#pragma once

#include <cstddef>
#include <mutex>
#include <new>
#include <span>

#include "buffer.hpp"
#include "../error.hpp"

namespace bin_serializer {

class BufferPool;

// A Buffer on lease from a BufferPool. Move-only; it returns the Buffer,
// cleared, when destroyed or on release(). It models BufferLike and the
// Contiguous* concepts by forwarding to buffer().
class pooled_buffer {
public:
  pooled_buffer() noexcept = default;
  pooled_buffer(pooled_buffer&& other) noexcept : pool_(other.pool_) {
    other.pool_ = nullptr;
    buf_.swap(other.buf_);
  }
  pooled_buffer& operator=(pooled_buffer&& other) noexcept {
    if (this != &other) {
      release();
      pool_ = other.pool_;
      other.pool_ = nullptr;
      buf_.swap(other.buf_);
    }
    return *this;
  }
  pooled_buffer(const pooled_buffer&) = delete;
  pooled_buffer& operator=(const pooled_buffer&) = delete;
  ~pooled_buffer() { release(); }

  // Returns the Buffer to the pool now; the lease is then an empty Buffer
  // that belongs to no pool.
  inline void release() noexcept;

  [[nodiscard]] Buffer& buffer() noexcept { return buf_; }
  [[nodiscard]] const Buffer& buffer() const noexcept { return buf_; }
  [[nodiscard]] bool pooled() const noexcept { return pool_ != nullptr; }

  bool write(const void* src, std::size_t n) noexcept { return buf_.write(src, n); }
  bool read(void* dst, std::size_t n) noexcept { return buf_.read(dst, n); }
  [[nodiscard]] std::byte* data() noexcept { return buf_.data(); }
  [[nodiscard]] const std::byte* data() const noexcept { return buf_.data(); }
  [[nodiscard]] std::size_t size() const noexcept { return buf_.size(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return buf_.capacity(); }
  [[nodiscard]] bool empty() const noexcept { return buf_.empty(); }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return buf_.bytes(); }
  bool reserve(std::size_t n) noexcept { return buf_.reserve(n); }
  void set_size(std::size_t n) noexcept { buf_.set_size(n); }
  // Forwarded only where Buffer has it (the cheaper commit of an append).
  template <class B = Buffer>
    requires requires(B& b, std::size_t n) { b.commit_size(n); }
  void commit_size(std::size_t n) noexcept {
    static_cast<B&>(buf_).commit_size(n); // dependent: checked only when B has it
  }
  [[nodiscard]] std::size_t read_position() const noexcept { return buf_.read_position(); }
  [[nodiscard]] std::size_t remaining() const noexcept { return buf_.remaining(); }
  bool seek(std::size_t pos) noexcept { return buf_.seek(pos); }
  void clear() noexcept { buf_.clear(); }
  [[nodiscard]] error last_error() const noexcept { return buf_.last_error(); }
  void set_error(error e) noexcept { buf_.set_error(e); }

private:
  friend class BufferPool;
  pooled_buffer(BufferPool* pool, Buffer&& buf) noexcept : pool_(pool) { buf_.swap(buf); }

  BufferPool* pool_ = nullptr;
  Buffer buf_;
};

class BufferPool {
public:
  struct limits {
    std::size_t max_pooled = 64;                              // idle Buffers kept
    std::size_t max_retained_capacity = std::size_t{1} << 20; // larger ones are freed on return
    std::size_t initial_capacity = 0;                         // reserved in each new Buffer
  };

  // Counters since construction, read together under the lock.
  struct statistics {
    std::size_t acquired = 0; // leases handed out
    std::size_t reused = 0;   // ... of which came from the free list
    std::size_t returned = 0; // Buffers put back on the free list
    std::size_t dropped = 0;  // Buffers freed on return (pool full or too large)
    std::size_t idle = 0;     // Buffers on the free list now
  };

  using lease = pooled_buffer;

  BufferPool() noexcept : BufferPool(limits{}) {}
  // The free list's slots are allocated here. If that allocation fails the
  // pool still works, it just keeps nothing (every Buffer is dropped on return).
  explicit BufferPool(limits l) noexcept : limits_(l) {
    if (l.max_pooled != 0) slots_ = new (std::nothrow) Buffer[l.max_pooled];
    if (slots_ == nullptr) limits_.max_pooled = 0;
  }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool() { delete[] slots_; }

  [[nodiscard]] pooled_buffer acquire() noexcept {
    Buffer buf;
    bool reused = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.acquired;
      if (idle_ != 0) {
        buf.swap(slots_[--idle_]);
        ++stats_.reused;
        reused = true;
      }
    }
    if (!reused && limits_.initial_capacity != 0) (void)buf.reserve(limits_.initial_capacity);
    return pooled_buffer(this, static_cast<Buffer&&>(buf));
  }

  [[nodiscard]] statistics stats() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    statistics s = stats_;
    s.idle = idle_;
    return s;
  }
  [[nodiscard]] const limits& config() const noexcept { return limits_; }

  // Frees every idle Buffer (leases out are not affected).
  void trim() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    while (idle_ != 0) slots_[--idle_] = Buffer{};
  }

private:
  friend class pooled_buffer;

  void give_back(Buffer& buf) noexcept {
    buf.clear();
    if (buf.capacity() <= limits_.max_retained_capacity) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle_ < limits_.max_pooled) {
        slots_[idle_++].swap(buf);
        ++stats_.returned;
        return;
      }
      ++stats_.dropped;
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.dropped;
    }
    // The caller frees buf outside the lock.
  }

  limits limits_;
  Buffer* slots_ = nullptr;
  std::size_t idle_ = 0;
  statistics stats_{};
  mutable std::mutex mutex_;
};

inline void pooled_buffer::release() noexcept {
  if (pool_ != nullptr) {
    pool_->give_back(buf_);
    pool_ = nullptr;
  }
  buf_ = Buffer{}; // a dropped Buffer is freed here, outside the pool's lock
}

} // namespace bin_serializer
