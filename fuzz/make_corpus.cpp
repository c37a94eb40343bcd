// Writes the seed corpora of the fuzz targets: fuzz/corpus/<target>/<name>.
//
//   make_corpus <output directory>      e.g.  build/fuzz/make_corpus fuzz/corpus
//
// Each target gets valid encodings of the types it decodes (so the fuzzer
// starts from deep inside every decoder) and a few hand-made hostile inputs:
// huge length prefixes, truncated messages, invalid bool / flag / index / enum
// bytes, duplicate keys, too-deep nesting. Deterministic: re-running it
// rewrites the same bytes. Files are named after what they hold.
#include "fuzz_types.hpp"
#include "workloads/views.hpp"
#include "tests/support/varint_reference.hpp"

#include <bin_serializer/frame/message.hpp>

#include "workloads/evolving.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace bs = bin_serializer;
namespace fs = std::filesystem;
using namespace fuzz_types;
using bytes = std::vector<std::byte>;

fs::path g_root;
std::size_t g_files = 0;
bool g_ok = true;

template <class T>
bytes enc(const T& value) {
  bs::Buffer buffer;
  if (!bs::serialize(buffer, value)) {
    std::fprintf(stderr, "make_corpus: serialize failed\n");
    g_ok = false;
    return {};
  }
  const auto b = buffer.bytes();
  return bytes(b.begin(), b.end());
}

// Padding bytes of trivially copyable members are copied verbatim (see
// docs/security.md): whatever the sender's memory held. Zero them so that the
// corpus is the same on every run.
bytes scrub(bytes b, const std::vector<bool>& padding) {
  for (std::size_t i = 0; i < b.size() && i < padding.size(); ++i)
    if (padding[i]) b[i] = std::byte{0};
  return b;
}
bytes enc_car(const workloads::Car& c) { return scrub(enc(c), car_padding_map(c)); }
bytes enc_tick(const workloads::Tick& t) {
  bytes b = enc(t);
  for (std::size_t i = 0; i < b.size(); ++i)
    if (tick_padding(i)) b[i] = std::byte{0};
  return b;
}

// A trivially copyable T whose every byte, padding included, starts at zero.
template <class T>
T zeroed() {
  T t;
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  return t;
}

Packet clean_packet() {
  const Packet sample = sample_packet();
  Packet p = zeroed<Packet>();
  p.id = sample.id;
  p.active = sample.active;
  p.level = sample.level;
  p.port = sample.port;
  std::memcpy(p.bits, sample.bits, sizeof p.bits);
  p.value = sample.value;
  p.inner = sample.inner;
  return p;
}

bytes u64(std::uint64_t v) {
  bytes out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}

bytes raw(std::initializer_list<unsigned> values) {
  bytes out;
  for (unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

bytes cat(std::initializer_list<bytes> parts) {
  bytes out;
  for (const bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

bytes head(const bytes& b, std::size_t n) {
  return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min(n, b.size())));
}

bytes with(bytes b, std::size_t at, unsigned value) {
  if (at < b.size()) b[at] = static_cast<std::byte>(value);
  return b;
}

void put(const char* target, const std::string& name, const bytes& content) {
  const fs::path dir = g_root / target;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(content.data()),
            static_cast<std::streamsize>(content.size()));
  if (!out) {
    std::fprintf(stderr, "make_corpus: cannot write %s/%s\n", dir.c_str(), name.c_str());
    g_ok = false;
  }
  ++g_files;
}

// Inputs every target gets: length / count prefixes far beyond the input.
void common_hostile(const char* target, const bytes& valid) {
  put(target, "hostile_empty", {});
  put(target, "hostile_len_max", cat({u64(~0ULL), raw({1, 2, 3, 4})}));
  put(target, "hostile_len_2p63", cat({u64(1ULL << 63), raw({'a', 'b', 'c'})}));
  put(target, "hostile_len_2p40", cat({u64(1ULL << 40), u64(0)}));
  put(target, "hostile_truncated_half", head(valid, valid.size() / 2));
  put(target, "hostile_truncated_last", head(valid, valid.size() == 0 ? 0 : valid.size() - 1));
}

void string_corpus() {
  const char* t = "fuzz_string";
  put(t, "valid_string", enc(std::string("hello")));
  put(t, "valid_empty", enc(std::string()));
  put(t, "valid_u16", enc(std::u16string(u"h\u00e9llo")));
  put(t, "valid_u32", enc(std::u32string(U"\U0001F600!")));
  put(t, "valid_9_chars", enc(std::string("123456789")));
  common_hostile(t, enc(std::string("truncate me")));
}

void vector_corpus() {
  const char* t = "fuzz_vector";
  put(t, "valid_ints", enc(std::vector<std::int32_t>{1, -2, 3, 1 << 30}));
  put(t, "valid_bools", enc(std::vector<bool>{true, false, true, true}));
  put(t, "valid_strings", enc(std::vector<std::string>{"a", "", "ccc"}));
  put(t, "valid_items", enc(std::vector<Item>{sample_item(), {"", 0, false, -1.0}}));
  put(t, "valid_points", enc(std::vector<Point>{{1, 2}, {3, 4}}));
  put(t, "valid_nested", enc(std::vector<std::vector<std::int16_t>>{{1}, {}, {2, 3}}));
  put(t, "hostile_bool_2", with(enc(std::vector<bool>{true, false}), 9, 2));
  put(t, "hostile_inner_count", cat({u64(1), u64(1ULL << 40), raw({1, 2, 3, 4})}));
  common_hostile(t, enc(std::vector<std::string>{"truncate", "me"}));
}

void optional_variant_corpus() {
  const char* t = "fuzz_optional_variant";
  using Var = std::variant<std::monostate, std::int32_t, std::string, std::vector<std::uint8_t>>;
  put(t, "valid_optional_string", enc(std::optional<std::string>("engaged")));
  put(t, "valid_optional_empty", enc(std::optional<std::string>()));
  put(t, "valid_variant_string", enc(Var(std::string("alt"))));
  put(t, "valid_variant_bytes", enc(Var(std::vector<std::uint8_t>{1, 2, 3})));
  put(t, "valid_nested",
      enc(std::optional<std::variant<std::int64_t, std::string>>(std::int64_t{-1})));
  put(t, "valid_vector_optional",
      enc(std::vector<std::optional<std::int16_t>>{1, std::nullopt, 3}));
  put(t, "hostile_flag_2", with(enc(std::optional<std::string>("x")), 0, 2));
  put(t, "hostile_index_7", cat({raw({7, 0, 0, 0}), u64(0)}));
  put(t, "hostile_index_max", cat({raw({0xff, 0xff, 0xff, 0xff}), u64(0)}));
  common_hostile(t, enc(Var(std::string("truncated"))));
}

void map_set_corpus() {
  const char* t = "fuzz_map_set";
  put(t, "valid_map",
      enc(std::map<std::string, std::vector<std::int32_t>>{{"a", {1, 2}}, {"b", {}}}));
  put(t, "valid_set", enc(std::set<std::string>{"x", "y", "z"}));
  put(t, "valid_multimap",
      enc(std::multimap<std::int32_t, std::string>{{1, "a"}, {1, "b"}, {2, ""}}));
  put(t, "valid_unordered", enc(std::unordered_map<std::uint32_t, std::string>{{7, "seven"}}));
  put(t, "valid_map_bool", enc(std::map<std::int16_t, bool>{{1, true}, {2, false}}));
  // [count 2]["b"][vec][ "a"][vec]: keys out of order (accepted, re-sorted).
  put(t, "valid_unsorted",
      enc(std::vector<std::pair<std::string, std::vector<std::int32_t>>>{{"b", {2}}, {"a", {1}}}));
  put(t, "hostile_duplicate_key",
      enc(std::vector<std::pair<std::string, std::vector<std::int32_t>>>{{"a", {1}}, {"a", {2}}}));
  put(t, "hostile_duplicate_set", enc(std::vector<std::string>{"x", "x"}));
  common_hostile(t, enc(std::set<std::string>{"trunc", "ated"}));
}

void list_deque_tuple_corpus() {
  const char* t = "fuzz_list_deque_tuple";
  put(t, "valid_list_deque", enc(std::list<std::deque<std::int32_t>>{{1, 2}, {}, {3}}));
  put(t, "valid_deque_strings", enc(std::deque<std::string>{"front", "back"}));
  put(t, "valid_forward_list", enc(std::forward_list<std::int16_t>{1, 2, 3}));
  put(t, "valid_tuple",
      enc(std::tuple<std::int32_t, std::string, std::list<std::uint8_t>, bool>{
          7, "seven", {7}, true}));
  put(t, "valid_pair", enc(std::pair<std::uint16_t, std::optional<std::string>>{1, "one"}));
  put(t, "hostile_list_count", cat({u64(1ULL << 50), u64(0)}));
  common_hostile(t, enc(std::deque<std::string>{"trunc", "ated"}));
}

void scalars_corpus() {
  const char* t = "fuzz_scalars_enums";
  for (unsigned v : {0u, 1u, 2u, 3u, 0xffu}) put(t, "byte_" + std::to_string(v), raw({v}));
  put(t, "offset_6", enc(std::int32_t{6}));
  put(t, "offset_minus_5", enc(Offset::Min));
  put(t, "valid_tuple",
      enc(std::tuple<bool, Level, std::int16_t, double>{true, Level::Mid, -3, 0.5}));
  put(t, "valid_fields", enc(Fields{true, Level::High, Offset::Max, Open::B, "tag"}));
  double nan = 0;
  const std::uint64_t nan_bits = 0x7ff8dead'beef0001ULL;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  put(t, "nan_payload", enc(nan));
  put(t, "hostile_fields_level_3",
      with(enc(Fields{true, Level::Low, Offset::Zero, Open::A, ""}), 1, 3));
  common_hostile(t, enc(Fields{false, Level::Mid, Offset::Zero, Open::A, "truncated"}));
}

void trivial_corpus() {
  const char* t = "fuzz_trivial_struct_untrusted";
  const Packet p = clean_packet();
  const Packet z = zeroed<Packet>();
  Envelope envelope{"topic", z};
  envelope.packet = p;
  put(t, "valid_packet", enc(p));
  put(t, "valid_packets", enc(std::vector<Packet>{p, z}));
  put(t, "valid_envelope", enc(envelope));
  put(t, "valid_tick", enc_tick(workloads::make_tick(7)));
  put(t, "hostile_packet_bool_2", with(enc(p), 4, 2));
  put(t, "hostile_packet_level_9", with(enc(p), 17, 9));
  put(t, "hostile_packets_bits_2", with(enc(std::vector<Packet>{z, z}), 8 + 20 + 9, 2));
  common_hostile(t, enc(std::vector<Packet>{p}));
}

void codec_members_corpus() {
  const char* t = "fuzz_trivial_codec_members";
  CodecMembers m = zeroed<CodecMembers>();
  m.id = 1;
  m.maybe = 2;
  m.either = 3;
  m.pair = {true, true};
  m.level = Level::Mid;
  put(t, "valid_members", enc(m));
  put(t, "valid_zero", enc(zeroed<CodecMembers>()));
  common_hostile(t, enc(m));
}

void recursive_corpus() {
  const char* t = "fuzz_recursive";
  put(t, "valid_tree", enc(sample_tree()));
  put(t, "valid_forest", enc(std::vector<Node>{sample_tree(), Node{}}));
  put(t, "valid_chain_8", enc(chain(8)));
  put(t, "valid_chain_9", enc(chain(9)));
  put(t, "valid_chain_100", enc(chain(100)));
  put(t, "hostile_chain_101", enc(chain(101)));
  put(t, "hostile_children_count", cat({raw({1, 0, 0, 0}), u64(1ULL << 60)}));
  common_hostile(t, enc(sample_tree()));
}

void workload_corpora() {
  put("fuzz_person", "valid_person", enc(workloads::make_person()));
  put("fuzz_person", "valid_people",
      enc(std::vector<workloads::Person>{workloads::make_person(), {}}));
  common_hostile("fuzz_person", enc(workloads::make_person()));

  std::mt19937_64 rng(1);
  put("fuzz_car", "valid_car_sequential", enc_car(workloads::make_car_sequential()));
  put("fuzz_car", "valid_car_random_1", enc_car(workloads::make_car_random(rng)));
  put("fuzz_car", "valid_car_random_2", enc_car(workloads::make_car_random(rng)));
  put("fuzz_car", "hostile_available_2", with(enc_car(workloads::make_car_sequential()), 18, 2));
  common_hostile("fuzz_car", enc_car(workloads::make_car_sequential()));

  const auto monsters = workloads::make_monsters(3);
  put("fuzz_monster", "valid_monster", enc(monsters.front()));
  put("fuzz_monster", "valid_monsters_3", enc(monsters));
  common_hostile("fuzz_monster", enc(monsters.back()));

  put("fuzz_structpacker", "valid_small_message", enc(workloads::make_small_message()));
  put("fuzz_structpacker", "valid_large_message_shrunk", enc(small_large_message()));
  put("fuzz_structpacker", "hostile_is_outgoing_2",
      with(enc(workloads::make_small_message()), 4, 2));
  common_hostile("fuzz_structpacker", enc(workloads::make_small_message()));
}

// fuzz_stream and fuzz_io decode the same types from non-contiguous sources.
void stream_corpus(const char* t) {
  put(t, "valid_string", enc(std::string("stream")));
  put(t, "valid_vector", enc(std::vector<std::int32_t>{1, 2, 3}));
  put(t, "valid_strings", enc(std::vector<std::string>{"a", "bb"}));
  put(t, "valid_map", enc(std::map<std::string, std::vector<std::int32_t>>{{"k", {1}}}));
  put(t, "valid_person", enc(workloads::make_person()));
  put(t, "valid_tree", enc(sample_tree()));
  put(t, "hostile_long_string_short_input", cat({u64(1 << 20), bytes(300, std::byte{'x'})}));
  common_hostile(t, enc(workloads::make_person()));
}

void limits_corpus() {
  const char* t = "fuzz_limits";
  put(t, "valid_msg", enc(sample_limits_msg()));
  LimitsMsg over = sample_limits_msg();
  over.name = std::string(17, 'n');
  put(t, "hostile_string_17", enc(over));
  over = sample_limits_msg();
  over.tags.assign(17, "t");
  put(t, "hostile_count_17", enc(over));
  over = sample_limits_msg();
  over.tree = chain(5);
  put(t, "hostile_depth_5", enc(over));
  over = sample_limits_msg();
  over.tags.assign(16, std::string(16, 'x'));
  put(t, "hostile_total_over_256", enc(over));
  put(t, "valid_tree_4", enc(chain(4)));
  // A map whose keys are not in order (accepted; re-encoded sorted).
  put(t, "valid_unsorted_map",
      enc(std::vector<std::pair<std::string, std::vector<std::int32_t>>>{{"b", {1}}, {"a", {}}}));
  common_hostile(t, enc(sample_limits_msg()));
}

// fuzz_views decodes the owning workloads' bytes into view types.
void views_corpus() {
  const char* t = "fuzz_views";
  const auto monsters = workloads::make_monsters(2);
  put(t, "valid_person", enc(workloads::make_person()));
  put(t, "valid_person_empty", enc(workloads::Person{}));
  put(t, "valid_monster", enc(monsters.front()));
  put(t, "valid_all_views",
      cat({enc(std::string("t")), enc(std::optional<std::string>("n")),
           enc(std::vector<std::uint8_t>{1, 2}), enc(std::vector<std::int32_t>{-1, 7}),
           enc(std::vector<bool>{true, false}), enc(std::vector<std::string>{"a", "bc"})}));
  put(t, "hostile_person_scores_2p61",
      cat({enc(std::string("n")), raw({1, 0, 0, 0}), enc(std::string("e")), u64(1ULL << 61)}));
  common_hostile(t, enc(monsters.back()));
}

// ---- framed messages and evolvable structs (fuzz_message, fuzz_evolution)

template <bs::options Opts, class T>
bytes enc_as(const T& value) {
  bs::Buffer buffer;
  if (!bs::serialize<Opts>(buffer, value)) g_ok = false;
  const auto b = buffer.bytes();
  return bytes(b.begin(), b.end());
}
template <bs::options Opts, class T>
bytes frame(const T& value) {
  bs::Buffer buffer;
  if (!bs::serialize_message<Opts>(buffer, value)) g_ok = false;
  const auto b = buffer.bytes();
  return bytes(b.begin(), b.end());
}

void message_corpus() {
  const char* t = "fuzz_message";
  const bytes person = frame<bs::portable>(workloads::make_person());
  put(t, "valid_person_portable", person);
  put(t, "valid_person_native", frame<bs::native>(workloads::make_person()));
  // The header of a framed Tick, then the Tick with its padding zeroed.
  put(t, "valid_tick_native",
      cat({head(frame<bs::native>(workloads::make_tick(5)), bs::message_header_size),
           enc_tick(workloads::make_tick(5))}));
  put(t, "valid_profile_v3_portable", frame<bs::portable>(workloads::make_profile_v3()));
  put(t, "valid_person_compact", frame<bs::compact>(workloads::make_person()));
  put(t, "valid_profile_v3_compact", frame<bs::compact>(workloads::make_profile_v3()));
  put(t, "valid_profile_v1_native", frame<bs::native>(workloads::make_profile_v1()));
  put(t, "valid_stream_portable",
      cat({person, frame<bs::portable>(std::vector<std::string>{"x", "yz"}),
           frame<bs::portable>(workloads::make_tick(1)), person}));
  // Messages with a type id (32-byte headers), alone and mixed with others.
  const bytes quote = frame<bs::portable>(fuzz_types::IdQuote{9, 1.5});
  put(t, "valid_id_quote_portable", quote);
  put(t, "valid_id_note_native", frame<bs::native>(fuzz_types::IdNote{"note"}));
  put(t, "valid_id_stream_portable",
      cat({quote, person, frame<bs::portable>(fuzz_types::IdNote{"n"}), quote}));
  put(t, "hostile_id_zero", with(with(with(quote, 24, 0), 25, 0), 26, 0));
  put(t, "hostile_id_reserved", with(quote, 29, 1));
  put(t, "hostile_id_flag_cleared", with(quote, 6, 0));
  put(t, "hostile_bad_magic", with(person, 0, 'X'));
  put(t, "hostile_bad_version", with(person, 4, 9));
  put(t, "hostile_length_2p56", with(person, 23, 1));
  put(t, "hostile_length_short", with(person, 16, 0x40));
  common_hostile(t, person);
}

void evolution_corpus() {
  const char* t = "fuzz_evolution";
  const bytes v3 = enc_as<bs::portable>(workloads::make_profile_v3());
  put(t, "valid_v1_portable", enc_as<bs::portable>(workloads::make_profile_v1()));
  put(t, "valid_v2_portable", enc_as<bs::portable>(workloads::make_profile_v2()));
  put(t, "valid_v3_portable", v3);
  put(t, "valid_v3_native", enc_as<bs::native>(workloads::make_profile_v3()));
  put(t, "valid_vector_v3_portable",
      enc_as<bs::portable>(std::vector<workloads::ProfileV3>{workloads::make_profile_v3(), {}}));
  put(t, "hostile_count_3", with(v3, 4, 3));
  put(t, "hostile_count_0", with(v3, 4, 0));
  put(t, "hostile_body_huge", with(v3, 3, 0x7f));
  put(t, "hostile_body_short", with(v3, 0, 4));
  common_hostile(t, v3);
}

// fuzz_varint_runs: one byte (how many elements the target vector holds
// first), then compact vectors of integers long enough for the blocks, the
// groups and the AVX-512 windows (64 bytes), in the length mixes they handle.
template <class T>
bytes varint_vector(std::size_t n, unsigned min_len, unsigned max_len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v)
    x = compact_vector_reference::of_length<T>(
        min_len + static_cast<unsigned>(rng() % (max_len - min_len + 1)), rng);
  return enc_as<bs::compact>(v);
}

void varint_runs_corpus() {
  const char* t = "fuzz_varint_runs";
  const bytes old0 = raw({0}), old20 = raw({20});
  put(t, "valid_u32_ones", cat({old0, varint_vector<std::uint32_t>(100, 1, 1, 1)}));
  put(t, "valid_u32_mixed", cat({old20, varint_vector<std::uint32_t>(120, 1, 5, 2)}));
  put(t, "valid_i32_identifiers", cat({old0, varint_vector<std::int32_t>(80, 5, 5, 3)}));
  put(t, "valid_u16_twos", cat({old20, varint_vector<std::uint16_t>(70, 2, 2, 4)}));
  put(t, "valid_i16_mixed", cat({old0, varint_vector<std::int16_t>(90, 1, 3, 5)}));
  put(t, "valid_u64_mixed", cat({old20, varint_vector<std::uint64_t>(60, 1, 10, 6)}));
  put(t, "valid_i64_small", cat({old0, varint_vector<std::int64_t>(100, 1, 2, 7)}));
  // A three-byte value, then 299 one-byte values (the o1k row of
  // scripts/instructions.sh: AVX-512 widens them after two windows); 16
  // two-byte values, then 200 one-byte values (a run that starts with them:
  // widened at once).
  std::vector<std::uint32_t> after_large(300, 5);
  after_large[0] = 1U << 14;
  for (std::size_t i = 1; i < after_large.size(); ++i) after_large[i] = i % 128;
  put(t, "valid_large_then_ones", cat({old0, enc_as<bs::compact>(after_large)}));
  std::vector<std::uint32_t> twos_then_ones(216);
  for (std::size_t i = 0; i < twos_then_ones.size(); ++i)
    twos_then_ones[i] = static_cast<std::uint32_t>(i < 16 ? 128 + 97 * i : i % 128);
  put(t, "valid_twos_then_ones", cat({old20, enc_as<bs::compact>(twos_then_ones)}));
  // Refused in the middle: a varint not in the shortest form, a fifth byte
  // of 16, and cut short.
  const bytes mixed = varint_vector<std::uint32_t>(120, 1, 5, 2);
  put(t, "hostile_not_shortest",
      cat({old20, raw({61}), bytes(30, std::byte{0x05}), raw({0x81, 0x80, 0x00}),
           bytes(30, std::byte{0x06})}));
  put(t, "hostile_fifth_byte_16",
      cat({old0, raw({20}), bytes(20, std::byte{0x01}), raw({0xff, 0xff, 0xff, 0xff, 0x10})}));
  put(t, "hostile_cut", cat({old20, head(mixed, mixed.size() - 3)}));
  put(t, "hostile_count_huge", cat({old0, raw({0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3})}));
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus root, e.g. fuzz/corpus>\n", argv[0]);
    return 2;
  }
  g_root = argv[1];
  string_corpus();
  vector_corpus();
  optional_variant_corpus();
  map_set_corpus();
  list_deque_tuple_corpus();
  scalars_corpus();
  trivial_corpus();
  codec_members_corpus();
  recursive_corpus();
  workload_corpora();
  stream_corpus("fuzz_stream");
  stream_corpus("fuzz_io");
  limits_corpus();
  views_corpus();
  message_corpus();
  evolution_corpus();
  varint_runs_corpus();
  std::printf("make_corpus: wrote %zu files under %s\n", g_files, g_root.c_str());
  return g_ok ? 0 : 1;
}
