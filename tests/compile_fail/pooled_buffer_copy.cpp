// A pooled_buffer is a lease: copying it would return one Buffer to the pool
// twice, so it is move-only.
//
// EXPECT-ERROR: deleted
#include <bin_serializer/buffer/pool.hpp>

#include <utility>

int main() {
  bin_serializer::BufferPool pool;
  bin_serializer::pooled_buffer a = pool.acquire();
#ifndef BIN_SERIALIZER_CF_CONTROL
  bin_serializer::pooled_buffer b = a;
#else
  bin_serializer::pooled_buffer b = std::move(a);
#endif
  return b.size() == 0 ? 0 : 1;
}
