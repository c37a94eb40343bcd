// The market mix of issue 31 (record logs): 35 % Trade, 60 % Quote, 5 %
// Status, and market(i), record i of the mix. Shared by tests/log/,
// bench/log.cpp, fuzz/fuzz_log.cpp and examples/market_log.cpp;
// python/examples/market_log.py implements the same generator.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace workloads {

struct Trade {
  std::uint64_t ts = 0;
  std::int64_t px = 0;
  std::uint32_t qty = 0;
  char side = 0;
  bool operator==(const Trade&) const = default;
};
struct Quote {
  std::uint64_t ts = 0;
  std::int64_t bid = 0, ask = 0;
  std::uint32_t bsz = 0, asz = 0;
  bool operator==(const Quote&) const = default;
};
struct Status {
  std::uint64_t ts = 0;
  std::string venue, text;
  bool operator==(const Status&) const = default;
};

using market_record = std::variant<Trade, Quote, Status>;

inline market_record market(std::uint64_t i) {
  const std::uint64_t k = i % 20;
  const std::uint64_t ts = 1'700'000'000'000'000'000ULL + i * 1000;
  if (k < 7)
    return Trade{ts, static_cast<std::int64_t>(100'000 + (i * 7919) % 2000) - 1000,
                 static_cast<std::uint32_t>(1 + (i * 31) % 500), i % 2 == 0 ? 'B' : 'S'};
  if (k < 19)
    return Quote{ts, static_cast<std::int64_t>(100'000 - (i % 50)),
                 static_cast<std::int64_t>(100'001 + (i % 50)),
                 static_cast<std::uint32_t>(1 + (i * 13) % 1000),
                 static_cast<std::uint32_t>(1 + (i * 17) % 1000)};
  return Status{ts, "XNAS", (i / 20) % 2 == 0 ? "halt" : "resume"};
}

} // namespace workloads
