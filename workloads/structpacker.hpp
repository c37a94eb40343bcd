// The StructPacker seed's two benchmark structures: a small message (about
// 395 bytes of primitives, strings, a DateTime, a TimeSpan and arrays) and a
// large one (about 2 MB, dominated by arrays). DateTime and TimeSpan map to
// std::chrono::time_point and std::chrono::duration.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace workloads {

using DateTime = std::chrono::sys_time<std::chrono::microseconds>;
using TimeSpan = std::chrono::microseconds;

struct SmallMessage {
  std::int32_t id{};
  bool is_outgoing{};
  std::uint8_t priority{};
  std::int16_t channel{};
  std::uint32_t flags{};
  std::int64_t sequence{};
  std::uint64_t checksum{};
  float score{};
  double balance{};
  DateTime time_posted{};
  TimeSpan time_to_live{};
  std::string sender;
  std::string text;
  std::vector<std::int32_t> recipients;
  std::vector<double> readings;
  std::vector<std::string> tags;
  bool operator==(const SmallMessage&) const = default;
};

inline SmallMessage make_small_message(std::uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  SmallMessage m;
  m.id = 5;
  m.is_outgoing = true;
  m.priority = 3;
  m.channel = -12;
  m.flags = 0xA5A5A5A5u;
  m.sequence = 9'000'000'001;
  m.checksum = rng();
  m.score = 0.875f;
  m.balance = 12345.6789;
  m.time_posted = DateTime{std::chrono::microseconds{1'700'000'000'000'000}};
  m.time_to_live = std::chrono::hours{48};
  m.sender = "alice@example.org";
  m.text =
      "Test message with a body long enough to look like a short chat line, sent by the benchmark.";
  for (int i = 0; i < 16; ++i) m.recipients.push_back(static_cast<std::int32_t>(rng() % 100000));
  for (int i = 0; i < 9; ++i) m.readings.push_back(static_cast<double>(rng() % 10000) / 7.0);
  m.tags = {"inbox", "work", "urgent", "follow-up"};
  return m;
}

struct LargeMessage {
  SmallMessage header;
  std::vector<double> samples;      // 160'000 x 8 B = 1.28 MB
  std::vector<std::int32_t> ids;    // 150'000 x 4 B = 0.6 MB
  std::vector<float> weights;       // 25'000 x 4 B = 0.1 MB
  std::vector<std::string> labels;  // 1'000 short strings
  std::vector<DateTime> timestamps; // 2'000 x 8 B
  bool operator==(const LargeMessage&) const = default;
};

inline LargeMessage make_large_message(std::uint64_t seed = 11) {
  std::mt19937_64 rng(seed);
  LargeMessage m;
  m.header = make_small_message(seed);
  m.samples.resize(160'000);
  for (auto& s : m.samples) s = static_cast<double>(rng() % 1'000'000) / 1000.0;
  m.ids.resize(150'000);
  for (auto& i : m.ids) i = static_cast<std::int32_t>(rng() % 2'000'000'000);
  m.weights.resize(25'000);
  for (auto& w : m.weights) w = static_cast<float>(rng() % 1000) / 1000.0f;
  m.labels.resize(1'000);
  for (std::size_t i = 0; i < m.labels.size(); ++i) m.labels[i] = "label-" + std::to_string(i);
  m.timestamps.resize(2'000);
  for (std::size_t i = 0; i < m.timestamps.size(); ++i)
    m.timestamps[i] = DateTime{
        std::chrono::microseconds{1'700'000'000'000'000 + static_cast<std::int64_t>(i) * 1000}};
  return m;
}

} // namespace workloads
