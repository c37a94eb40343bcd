// Types and sample values shared by the fuzz targets and fuzz/make_corpus.cpp,
// so the checked-in seed corpus always holds encodings of exactly the types the
// targets decode.
#pragma once

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include "../workloads/workloads.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace fuzz_types {

// ---- enums -------------------------------------------------------------------------

// Ranged: decoding rejects values outside [Low, High].
enum class Level : std::uint8_t { Low = 0, Mid = 1, High = 2 };
// Ranged, signed and wider.
enum class Offset : std::int32_t { Min = -5, Zero = 0, Max = 5 };
// Open: no enum_range, every value of the underlying type is accepted.
enum class Open : std::uint16_t { A = 1, B = 2 };

} // namespace fuzz_types

template <>
struct bin_serializer::enum_range<fuzz_types::Level> {
  static constexpr fuzz_types::Level min = fuzz_types::Level::Low;
  static constexpr fuzz_types::Level max = fuzz_types::Level::High;
};
template <>
struct bin_serializer::enum_range<fuzz_types::Offset> {
  static constexpr fuzz_types::Offset min = fuzz_types::Offset::Min;
  static constexpr fuzz_types::Offset max = fuzz_types::Offset::Max;
};

namespace fuzz_types {

// ---- fuzz_vector -----------------------------------------------------------------------

// Reflectable (reflect()) and not trivially copyable: encoded field by field,
// so the bool is checked in every mode.
struct Item {
  std::string name;
  std::uint16_t quantity{};
  bool flag{};
  double price{};
  template <class V> auto reflect(V&& v) { return v(name, quantity, flag, price); }
  template <class V> auto reflect(V&& v) const { return v(name, quantity, flag, price); }
  bool operator==(const Item&) const = default;
};

// Trivially copyable, no padding, no bool: a vector of them is one memcpy.
struct Point {
  std::int32_t x{};
  std::int32_t y{};
  bool operator==(const Point&) const = default;
};

inline Item sample_item() { return {"widget", 7, true, 2.5}; }

// ---- fuzz_scalars_enums ------------------------------------------------------------------

// An aggregate that is not trivially copyable: bool and ranged enum fields are
// checked one by one even with the default options.
struct Fields {
  bool on{};
  Level level{};
  Offset offset{};
  Open open{};
  std::string tag;
  bool operator==(const Fields&) const = default;
};

// ---- fuzz_trivial_struct_untrusted ---------------------------------------------------------

struct Inner {
  bool on;
  Level level;
  bool operator==(const Inner&) const = default;
};

// Trivially copyable with bool, ranged-enum and bool-array members and padding:
// one bulk copy; its members are only checked with check_trivial_members
// (the `untrusted` preset).
struct Packet {
  std::uint32_t id;   // 0..3
  bool active;        // 4
  Level level;        // 5
  std::uint16_t port; // 6..7
  bool bits[3];       // 8..10
                      // 11: padding
  std::int32_t value; // 12..15
  Inner inner;        // 16..17
                      // 18..19: padding
  bool operator==(const Packet&) const = default;
};
static_assert(std::is_trivially_copyable_v<Packet>);
static_assert(sizeof(Packet) == 20 && offsetof(Packet, bits) == 8 &&
              offsetof(Packet, value) == 12 && offsetof(Packet, inner) == 16);

inline bool packet_padding(std::size_t offset_in_packet) {
  return offset_in_packet == 11 || offset_in_packet == 18 || offset_in_packet == 19;
}

// Whether the bytes of one encoded Packet hold valid bool and enum values
// (what the untrusted mode must check), read as bytes: never as bool.
inline bool packet_bytes_valid(const std::byte* p) {
  auto u = [p](std::size_t i) { return std::to_integer<unsigned>(p[i]); };
  const auto level_ok = [](unsigned v) { return v <= static_cast<unsigned>(Level::High); };
  return u(4) <= 1 && level_ok(u(5)) && u(8) <= 1 && u(9) <= 1 && u(10) <= 1 && u(16) <= 1 &&
         level_ok(u(17));
}

// Not trivially copyable (std::string): the Packet is a bulk member inside a
// field-by-field struct.
struct Envelope {
  std::string topic;
  Packet packet;
  bool operator==(const Envelope&) const = default;
};

inline Packet sample_packet() {
  Packet p{};
  p.id = 42;
  p.active = true;
  p.level = Level::Mid;
  p.port = 8080;
  p.bits[0] = true;
  p.bits[2] = true;
  p.value = -17;
  p.inner = {true, Level::High};
  return p;
}

// ---- fuzz_trivial_codec_members --------------------------------------------------------------

// Trivially copyable although its members have codecs that validate (an
// optional's flag, a variant's index, std::array<bool>): the whole struct is
// one bulk copy, so those codecs never run.
struct CodecMembers {
  std::int32_t id{};
  std::optional<std::int32_t> maybe;
  std::variant<std::int32_t, float> either;
  std::array<bool, 2> pair{};
  Level level{};
  bool operator==(const CodecMembers&) const = default;
};
static_assert(std::is_trivially_copyable_v<CodecMembers>);

// Trivially copyable, no padding, no member with a layout codec: copied as a
// block. Its std::array<bool> and std::array<Level> elements are bool and
// ranged-enum members, which check_trivial_members (`untrusted`) must check.
struct ArrayMembers {
  std::uint32_t id;
  std::array<bool, 2> on;
  std::array<Level, 2> levels;
  bool operator==(const ArrayMembers&) const = default;
};
static_assert(std::is_trivially_copyable_v<ArrayMembers> && sizeof(ArrayMembers) == 8 &&
              offsetof(ArrayMembers, on) == 4 && offsetof(ArrayMembers, levels) == 6);

// ---- fuzz_recursive ----------------------------------------------------------------------------

struct Node {
  std::int32_t v{};
  std::vector<Node> children;
  bool operator==(const Node&) const = default;
};

// Containers on the deepest path: the decoder's notion of depth (each
// std::vector entered is one level).
inline std::size_t height(const Node& n) {
  std::size_t deepest = 0;
  for (const Node& c : n.children) {
    const std::size_t h = height(c);
    if (h > deepest) deepest = h;
  }
  return 1 + deepest;
}

inline Node sample_tree() {
  Node root{1, {}};
  root.children.push_back({2, {}});
  root.children.push_back({3, {{4, {}}, {5, {}}}});
  return root;
}

// A chain root -> child -> ... of `n` nodes: its height is n.
inline Node chain(std::size_t n) {
  Node root{0, {}};
  Node* cur = &root;
  for (std::size_t i = 1; i < n; ++i) {
    cur->children.push_back({static_cast<std::int32_t>(i), {}});
    cur = &cur->children.back();
  }
  return root;
}

// ---- fuzz_limits ----------------------------------------------------------------------------------

inline constexpr bin_serializer::options tight_limits{
    .max_string_length = 16, .max_element_count = 16, .max_depth = 4, .max_total_bytes = 256};

struct LimitsMsg {
  std::string name;
  std::vector<std::string> tags;
  std::map<std::string, std::vector<std::int32_t>> index;
  std::vector<std::vector<std::uint8_t>> blobs;
  std::optional<std::list<std::string>> notes;
  std::deque<std::u16string> wide;
  Node tree;
  bool operator==(const LimitsMsg&) const = default;
};

inline LimitsMsg sample_limits_msg() {
  LimitsMsg m;
  m.name = "limits";
  m.tags = {"a", "bb"};
  m.index = {{"k", {1, 2}}};
  m.blobs = {{1, 2, 3}, {}};
  m.notes = std::list<std::string>{"n"};
  m.wide = {u"w"};
  m.tree = {1, {{2, {}}}};
  return m;
}

// ---- stream sources -------------------------------------------------------------------------------

// A source with read() only: no position, no error recording, no size. The
// decoder cannot roll back on failure, and cannot know how much input is left.
class ReadOnlySource {
public:
  explicit ReadOnlySource(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  bool read(void* dst, std::size_t n) noexcept {
    if (n > bytes_.size() - pos_) return false;
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t consumed() const noexcept { return pos_; }

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
};

// read() plus read_position()/seek() and error recording, but no data(): the
// stream reader with rollback.
class SeekableSource {
public:
  explicit SeekableSource(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  bool read(void* dst, std::size_t n) noexcept {
    if (n > bytes_.size() - pos_) {
      err_ = {bin_serializer::errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t read_position() const noexcept { return pos_; }
  bool seek(std::size_t pos) noexcept {
    if (pos > bytes_.size()) return false;
    pos_ = pos;
    return true;
  }
  [[nodiscard]] bin_serializer::error last_error() const noexcept { return err_; }
  void set_error(bin_serializer::error e) noexcept { err_ = e; }

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  bin_serializer::error err_{};
};

// ---- workload helpers -------------------------------------------------------------------------------

// workloads::Car carries padding on the wire in two trivially copyable types:
// Engine (bytes 3 and 11 of 12), at a fixed offset (every field before it has a
// fixed size), and Acceleration (bytes 2 and 3 of 8), inside the
// performance-figure groups. car_padding_map(car) marks those bytes of car's
// encoding.
inline constexpr std::size_t car_engine_offset =
    8 + 8 + 2 + 1 + 1 + 16 + 6 + sizeof(std::bitset<8>);
static_assert(std::is_trivially_copyable_v<workloads::Engine> && sizeof(workloads::Engine) == 12);
static_assert(offsetof(workloads::Engine, max_rpm) == 4 &&
              offsetof(workloads::Engine, booster) == 9);
static_assert(std::is_trivially_copyable_v<workloads::Acceleration> &&
              sizeof(workloads::Acceleration) == 8 &&
              offsetof(workloads::Acceleration, seconds) == 4);

// Marks the padding of the PerformanceFigure encoded at `pos`; returns its end.
inline std::size_t mark_performance_figure(std::vector<bool>& map, std::size_t pos,
                                           const workloads::PerformanceFigure& pf) {
  pos += 1 + 8; // octane_rating, acceleration count
  for (std::size_t i = 0; i < pf.acceleration.size(); ++i, pos += 8) {
    if (map.size() < pos + 8) map.resize(pos + 8, false);
    map[pos + 2] = map[pos + 3] = true;
  }
  return pos;
}

inline std::vector<bool> performance_figure_padding_map(const workloads::PerformanceFigure& pf) {
  std::vector<bool> map;
  (void)mark_performance_figure(map, 0, pf);
  return map;
}

inline std::vector<bool> car_padding_map(const workloads::Car& car) {
  std::vector<bool> map(car_engine_offset + 12, false);
  map[car_engine_offset + 3] = map[car_engine_offset + 11] = true;
  std::size_t pos = car_engine_offset + 12 + 8;
  for (const auto& ff : car.fuel_figures) pos += 2 + 4 + 8 + ff.usage_description.size();
  pos += 8;
  for (const auto& pf : car.performance_figures) pos = mark_performance_figure(map, pos, pf);
  return map;
}

// workloads::Tick: 25 bytes of fields, 7 of padding.
static_assert(sizeof(workloads::Tick) == 32 && offsetof(workloads::Tick, side) == 24);
inline bool tick_padding(std::size_t offset) { return offset % 32 >= 25; }

// A LargeMessage with a few elements per vector (the real one is 2 MB).
inline workloads::LargeMessage small_large_message() {
  workloads::LargeMessage m;
  m.header = workloads::make_small_message(3);
  m.samples = {1.5, -2.25, 1e300};
  m.ids = {1, 2, 3, -4};
  m.weights = {0.5f};
  m.labels = {"l0", "label-1"};
  m.timestamps = {workloads::DateTime{std::chrono::microseconds{123}}};
  return m;
}

// Framed messages with a message type id (flags bit 1, 32-byte header): a
// one-block payload (constant-header fast path) and a variable one.
struct IdQuote {
  std::uint64_t ts;
  double px;
  static constexpr std::uint32_t bin_serializer_message_id = 7;
};
struct IdNote {
  std::string text;
  static constexpr std::uint32_t bin_serializer_message_id = 0x01020304;
};

} // namespace fuzz_types
