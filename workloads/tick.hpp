// Tick: the design document's market-data record, five trivially copyable
// fields; plus Vec and LargeStruct from its compare benchmarks.
#pragma once

#include <cstdint>
#include <random>

namespace workloads {

struct Tick {
  std::uint64_t timestamp_ns;
  std::uint32_t symbol_id;
  std::uint32_t quantity;
  double price;
  std::uint8_t side; // 0 bid, 1 ask

  bool operator==(const Tick&) const = default;
};

inline Tick make_tick(std::uint64_t i) {
  // Value-initialised, then assigned: the 7 padding bytes are zero, so the
  // native encoding (which carries them) is deterministic.
  Tick t{};
  t.timestamp_ns = 1'700'000'000'000'000'000ULL + i * 1000;
  t.symbol_id = static_cast<std::uint32_t>(i % 512);
  t.quantity = static_cast<std::uint32_t>(100 + i % 900);
  t.price = 100.0 + static_cast<double>(i % 1000) * 0.01;
  t.side = static_cast<std::uint8_t>(i & 1);
  return t;
}

// 12 bytes, trivially copyable.
struct Vec {
  float x, y, z;
  bool operator==(const Vec&) const = default;
};

// 80 bytes in 20 four-byte fields, trivially copyable.
struct LargeStruct {
  std::int32_t a0, a1, a2, a3, a4, a5, a6, a7, a8, a9;
  float f0, f1, f2, f3, f4, f5, f6, f7, f8, f9;
  bool operator==(const LargeStruct&) const = default;
};

inline LargeStruct make_large_struct() {
  LargeStruct s{};
  std::int32_t k = 1;
  for (std::int32_t* p : {&s.a0, &s.a1, &s.a2, &s.a3, &s.a4, &s.a5, &s.a6, &s.a7, &s.a8, &s.a9})
    *p = k++;
  float f = 0.5f;
  for (float* p : {&s.f0, &s.f1, &s.f2, &s.f3, &s.f4, &s.f5, &s.f6, &s.f7, &s.f8, &s.f9})
    *p = (f += 1.25f);
  return s;
}

} // namespace workloads
